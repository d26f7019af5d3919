import sys

from tools.calibration.run import main

sys.exit(main())
