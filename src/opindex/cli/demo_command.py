"""``opindex demo``: sandbox + sample corpus, a sync with progress, a tour; ``--serve`` for MCP."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from opindex.cli.exit_codes import EXIT_FAILURE, EXIT_OK


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``opindex demo`` and its options."""
    parser = subparsers.add_parser(
        "demo",
        help="see opindex work on a sample OpenProject (no server needed)",
        description=(
            "Start a sandbox OpenProject with the bundled sample corpus on a free port, sync "
            "it into a temporary data directory, and run a tour of searches: a typo, a word "
            "found only in a comment (beside the live path's answer), a question, a name "
            "without diacritics, and a zero-hit query rescued by relaxation. With --serve, "
            "keep serving the tools over MCP (HTTP) and print the client configuration."
        ),
    )
    parser.add_argument(
        "--data-dir",
        type=Path,
        metavar="DIR",
        help="keep the demo's configuration and index here (default: a temporary directory)",
    )
    parser.add_argument(
        "--serve",
        action="store_true",
        help="after the tour, serve MCP over streamable HTTP until Ctrl-C",
    )
    parser.add_argument(
        "--host", default="127.0.0.1", help="--serve: address to bind (default 127.0.0.1)"
    )
    parser.add_argument("--port", type=int, default=0, help="--serve: port (default 0: a free one)")
    parser.add_argument(
        "--corpus", type=Path, metavar="FILE", help="another sandbox corpus file to serve"
    )


def run(args: argparse.Namespace) -> int:
    """Run the demo; exit 1 if a tour step missed the record it is meant to find."""
    from opindex.demo import DemoOptions, run_demo

    options = DemoOptions(
        data_dir=args.data_dir,
        serve=args.serve,
        host=args.host,
        port=args.port,
        corpus=args.corpus,
    )
    outcomes = run_demo(options, sys.stdout)
    sys.stdout.flush()
    return EXIT_OK if all(outcome.found_expected for outcome in outcomes) else EXIT_FAILURE
