import sys

from tools.transfers.run import main

sys.exit(main())
