import sys

from tools.deployment.run import main

sys.exit(main())
