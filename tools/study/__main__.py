import sys

from tools.study.run import main

sys.exit(main())
