"""``python -m opindex`` runs the command line."""

import sys

from opindex.cli import main

sys.exit(main())
