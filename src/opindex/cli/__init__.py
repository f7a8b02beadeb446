"""Command line: builds the app from arguments and turns library errors into exit codes."""

from __future__ import annotations

import argparse
import gc
import importlib
import logging
import os
import sys
from collections.abc import Sequence
from typing import Protocol

from opindex import __version__
from opindex.cli.exit_codes import (
    EXIT_AUTH,
    EXIT_BROKEN_PIPE,
    EXIT_FAILURE,
    EXIT_INTERRUPTED,
    EXIT_LOCAL_STORAGE,
    EXIT_OK,
    EXIT_SYNC_RUNNING,
    EXIT_UPSTREAM,
    EXIT_USAGE,
    exit_code_for,
)
from opindex.errors import OpindexError

__all__ = [
    "EXIT_AUTH",
    "EXIT_BROKEN_PIPE",
    "EXIT_FAILURE",
    "EXIT_INTERRUPTED",
    "EXIT_LOCAL_STORAGE",
    "EXIT_OK",
    "EXIT_SYNC_RUNNING",
    "EXIT_UPSTREAM",
    "EXIT_USAGE",
    "build_parser",
    "exit_code_for",
    "main",
]

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
# Sub-command name -> its one-line help, as its module registers it: ``opindex --help``
# lists the commands from here without importing any command module (start-up time).
COMMAND_HELP: dict[str, str] = {
    "serve": "serve the search tools over MCP (stdio or HTTP), syncing in the background",
    "sync": "bring tenant indexes up to date",
    "rebuild": "rebuild a tenant's index from scratch, swapping it in atomically",
    "status": "show each tenant's index: freshness, last sync, documents, size",
    "search": "search work packages, meetings or wiki pages",
    "sandbox": "serve a corpus file as an OpenProject API v3 stand-in",
    "demo": "see opindex work on a sample OpenProject (no server needed)",
    "doctor": "check the configuration and reach every tenant; name the first problem",
    "init": "write a commented opindex.toml (mode 600) to start from",
}


class CommandModule(Protocol):
    """What every sub-command module provides."""

    def add_parser(self, subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
        """Register the sub-command's parser (its ``prog`` is ``opindex NAME``)."""

    def run(self, args: argparse.Namespace) -> int:
        """Run the command; return an exit code. May raise ``OpindexError``."""


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
    only: str | None = None, *, declare_only: bool = False
) -> tuple[argparse.ArgumentParser, dict[str, CommandModule]]:
    """The top-level parser with every sub-command registered, or just *only*.

    Loading one command's module keeps start-up fast (``opindex sandbox`` never imports
    Tantivy or the MCP SDK) and keeps one command working if another cannot load. With
    *declare_only* (and no *only*) every command is declared by name and help alone and
    no command module is imported: enough for ``opindex --help`` and usage errors.
    """
    parser = argparse.ArgumentParser(
        prog="opindex",
        description="Typo-tolerant, ranked search over OpenProject, for LLM clients (MCP).",
    )
    parser.add_argument("--version", action="version", version=f"opindex {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="log debug details to stderr")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    modules: dict[str, CommandModule] = {}
    if declare_only and only is None:
        for name in COMMANDS:
            subparsers.add_parser(name, help=COMMAND_HELP[name])
        return parser, modules
    for name in [only] if only else COMMANDS:
        modules[name] = _load(name)
        modules[name].add_parser(subparsers)
    return parser, modules


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``opindex`` console script (*argv* None: the program's own
    arguments, and the process ends when this returns)."""
    # A Rust panic in Tantivy (damaged index files) is caught, reported and repaired;
    # its backtrace would only flood stderr (and an MCP client's log).
    os.environ["RUST_BACKTRACE"] = "0"
    try:
        code = _run(list(sys.argv[1:] if argv is None else argv))
        sys.stdout.flush()  # here, where a closed pipe is still caught below
        if argv is None:
            # The interpreter's last collections would walk every object numpy, pydantic
            # and Tantivy made, for nothing the exit needs: 40-50 ms of `opindex search`
            # (DECISIONS D161). atexit handlers, flushes and thread joins still run.
            gc.freeze()
        return code
    except BrokenPipeError:
        # The reader went away (`opindex status | head -1`): stop quietly, as a program
        # killed by SIGPIPE would, without a traceback or a second error at exit.
        _discard_output()
        return EXIT_BROKEN_PIPE


def _run(arguments: list[str]) -> int:
    chosen = _chosen_command(arguments)
    parser, modules = build_parser(chosen, declare_only=chosen is None)
    args = parser.parse_args(arguments)
    from opindex.cli.terminal_text import VisibleFormatter, visible

    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(VisibleFormatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.WARNING, handlers=[handler]
    )
    try:
        return modules[args.command].run(args)
    except OpindexError as error:
        print(visible(f"opindex {args.command}: {error}"), file=sys.stderr)
        return exit_code_for(error)
    except KeyboardInterrupt:
        print(f"opindex {args.command}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


def _discard_output() -> None:
    """Point stdout (and stderr, if its reader left too) at /dev/null, so the flush at
    interpreter exit has nowhere to fail."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (BrokenPipeError, ValueError):
                os.dup2(devnull, stream.fileno())
            except OSError:
                continue
    finally:
        os.close(devnull)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
