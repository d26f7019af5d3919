import sys

from tools.video_capacity.run import main

sys.exit(main())
