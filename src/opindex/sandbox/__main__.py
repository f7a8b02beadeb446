"""``python -m opindex.sandbox ARGS``: ``opindex sandbox ARGS`` without loading other commands."""

from __future__ import annotations

import sys

from opindex.cli import main

if __name__ == "__main__":
    sys.exit(main(["sandbox", *sys.argv[1:]]))
