import sys

from fieldglass.cli import main

sys.exit(main())
