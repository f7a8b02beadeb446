"""Command line: builds the app from arguments and turns library errors into exit codes."""

from __future__ import annotations

import argparse
import importlib
import logging
import sys
from collections.abc import Sequence
from typing import Protocol

from opindex import __version__
from opindex.errors import (
    AuthenticationError,
    ConfigError,
    CorpusError,
    IndexUnavailableError,
    InvalidArgumentError,
    OpenProjectError,
    OpindexError,
    PermissionDeniedError,
    StateError,
    SyncInProgressError,
)

# Exit codes (documented in the README).
EXIT_OK = 0
EXIT_FAILURE = 1
EXIT_USAGE = 2
EXIT_SYNC_RUNNING = 3
EXIT_AUTH = 4
EXIT_UPSTREAM = 5
EXIT_LOCAL_STORAGE = 6
EXIT_INTERRUPTED = 130

# Sub-command name -> module under opindex.cli that defines ``add_parser`` and ``run``.
COMMANDS: dict[str, str] = {
    "serve": "opindex.cli.serve_command",
    "sync": "opindex.cli.sync_command",
    "rebuild": "opindex.cli.rebuild_command",
    "status": "opindex.cli.status_command",
    "search": "opindex.cli.search_command",
    "sandbox": "opindex.cli.sandbox_command",
    "demo": "opindex.cli.demo_command",
    "doctor": "opindex.cli.doctor_command",
    "init": "opindex.cli.init_command",
}


class CommandModule(Protocol):
    """What every sub-command module provides."""

    def add_parser(self, subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
        """Register the sub-command's parser (its ``prog`` is ``opindex NAME``)."""

    def run(self, args: argparse.Namespace) -> int:
        """Run the command; return an exit code. May raise ``OpindexError``."""


def exit_code_for(error: OpindexError) -> int:
    """Map a library error to the documented exit code."""
    if isinstance(error, SyncInProgressError):
        return EXIT_SYNC_RUNNING
    if isinstance(error, AuthenticationError | PermissionDeniedError):
        return EXIT_AUTH
    if isinstance(error, OpenProjectError):
        return EXIT_UPSTREAM
    if isinstance(error, IndexUnavailableError | StateError):
        return EXIT_LOCAL_STORAGE
    if isinstance(error, ConfigError | InvalidArgumentError | CorpusError):
        return EXIT_USAGE
    return EXIT_FAILURE


def _load(name: str) -> CommandModule:
    module: CommandModule = importlib.import_module(COMMANDS[name])
    return module


def _chosen_command(argv: Sequence[str]) -> str | None:
    """The sub-command named on the command line, if any (top-level options come first)."""
    for arg in argv:
        if not arg.startswith("-"):
            return arg if arg in COMMANDS else None
    return None


def build_parser(
    only: str | None = None,
) -> tuple[argparse.ArgumentParser, dict[str, CommandModule]]:
    """The top-level parser with every sub-command registered, or just *only*.

    Loading one command's module keeps start-up fast (``opindex sandbox`` never imports
    Tantivy or the MCP SDK) and keeps one command working if another cannot load.
    """
    parser = argparse.ArgumentParser(
        prog="opindex",
        description="Typo-tolerant, ranked search over OpenProject, for LLM clients (MCP).",
    )
    parser.add_argument("--version", action="version", version=f"opindex {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="log debug details to stderr")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    modules: dict[str, CommandModule] = {}
    for name in [only] if only else COMMANDS:
        modules[name] = _load(name)
        modules[name].add_parser(subparsers)
    return parser, modules


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``opindex`` console script."""
    arguments = list(sys.argv[1:] if argv is None else argv)
    parser, modules = build_parser(_chosen_command(arguments))
    args = parser.parse_args(arguments)
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.WARNING,
        stream=sys.stderr,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    try:
        return modules[args.command].run(args)
    except OpindexError as error:
        print(f"opindex {args.command}: {error}", file=sys.stderr)
        return exit_code_for(error)
    except KeyboardInterrupt:
        print(f"opindex {args.command}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
