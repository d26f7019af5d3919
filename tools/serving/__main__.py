import sys

from tools.serving.run import main

sys.exit(main())
