import sys

from mysqltop.cli import main

sys.exit(main())
