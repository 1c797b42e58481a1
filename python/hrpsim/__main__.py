"""`python -m hrpsim ...` runs the `hrpsim` command."""

import sys

from .cli import main

sys.exit(main())
