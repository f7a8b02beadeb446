"""``python -m opindex.sandbox ARGS``: ``opindex sandbox ARGS`` without loading other commands."""

from __future__ import annotations

import argparse
import sys

from opindex.cli import exit_code_for, sandbox_command
from opindex.errors import OpindexError


def main(argv: list[str] | None = None) -> int:
    """Parse the ``opindex sandbox`` options and serve; errors become the CLI's exit codes."""
    parser = argparse.ArgumentParser(prog="opindex")
    subparsers = parser.add_subparsers(dest="command", required=True)
    sandbox_command.add_parser(subparsers)
    args = parser.parse_args(["sandbox", *(sys.argv[1:] if argv is None else argv)])
    try:
        return sandbox_command.run(args)
    except OpindexError as error:
        print(f"opindex sandbox: {error}", file=sys.stderr)
        return exit_code_for(error)
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
