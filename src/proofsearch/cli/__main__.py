import sys

from proofsearch.cli import main

sys.exit(main())
