"""The ``--config PATH`` option every index command shares (light: imports nothing else)."""

from __future__ import annotations

import argparse
from pathlib import Path


def add_config_argument(parser: argparse.ArgumentParser) -> None:
    """``--config PATH`` as every index command spells it."""
    parser.add_argument(
        "--config",
        type=Path,
        metavar="PATH",
        help="configuration file (default: $OPINDEX_CONFIG, ./opindex.toml, or the environment)",
    )
