import sys

from tools.graphs.page import main

sys.exit(main())
