"""``opindex sync``: bring one or every tenant's index up to date (daemon-free, cron-friendly)."""

from __future__ import annotations

import argparse
import asyncio
import signal
import sys
from collections.abc import Coroutine
from typing import Any, TypeVar

from opindex.cli.config_option import add_config_argument
from opindex.cli.exit_codes import EXIT_OK, exit_code_for
from opindex.cli.output import emit
from opindex.cli.terminal_text import visible
from opindex.config import Config, TenantConfig, load_config
from opindex.errors import OpindexError
from opindex.service import NullProgress, SyncProgress, TerminalProgress, sync_tenant

T = TypeVar("T")


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``opindex sync`` and its options."""
    parser = subparsers.add_parser(
        "sync",
        help="bring tenant indexes up to date",
        description=(
            "Read what changed in OpenProject since the last sync and update the index "
            "(a full sync when the tenant has no index yet). Exit code 3 if another sync "
            "of the tenant is running."
        ),
    )
    add_config_argument(parser)
    parser.add_argument(
        "--tenant", metavar="NAME", help="sync only this tenant (default: every configured one)"
    )
    parser.add_argument(
        "--full", action="store_true", help="re-read everything instead of only what changed"
    )
    add_quiet_argument(parser)


def add_quiet_argument(parser: argparse.ArgumentParser) -> None:
    """``--quiet`` for cron: no progress line, no summary; problems still go to stderr."""
    parser.add_argument(
        "--quiet",
        action="store_true",
        help="no progress and no summary; warnings and errors still go to stderr (for cron)",
    )


def progress_for(quiet: bool) -> SyncProgress:
    """A progress line on stderr when it is a terminal and not ``--quiet``."""
    if quiet or not sys.stderr.isatty():
        return NullProgress()
    return TerminalProgress(sys.stderr)


def selected_tenants(config: Config, name: str | None) -> list[TenantConfig]:
    """The tenant named ``name`` (ConfigError if unknown), or every configured tenant."""
    return [config.tenant(name)] if name is not None else list(config.tenants)


def run_interruptibly(work: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run(work)``, with SIGTERM cancelling it like Ctrl-C does, so that a run
    stopped by a service manager is recorded as interrupted; raises KeyboardInterrupt
    (exit code 130) when stopped either way."""

    async def main() -> T:
        loop = asyncio.get_running_loop()
        task = asyncio.current_task()
        installed = False
        if task is not None:
            try:
                loop.add_signal_handler(signal.SIGTERM, task.cancel)
                installed = True
            except (NotImplementedError, RuntimeError, ValueError):  # not the main thread
                pass
        try:
            return await work
        finally:
            if installed:
                loop.remove_signal_handler(signal.SIGTERM)

    try:
        return asyncio.run(main())
    except asyncio.CancelledError:
        raise KeyboardInterrupt from None


def run(args: argparse.Namespace) -> int:
    """Sync the selected tenants one after the other.

    With one tenant, its error propagates (the dispatcher prints it and maps the exit
    code). With several, every tenant is tried; failures are printed as they happen and
    the exit code is that of the first failure.
    """
    config = load_config(args.config)
    tenants = selected_tenants(config, args.tenant)
    progress = progress_for(args.quiet)
    exit_code = EXIT_OK
    for tenant in tenants:
        try:
            report = run_interruptibly(
                sync_tenant(tenant, config.data_dir, full=args.full, progress=progress)
            )
        except OpindexError as error:
            if len(tenants) == 1:
                raise
            print(visible(f"opindex sync: {tenant.name}: {error}"), file=sys.stderr)
            exit_code = exit_code or exit_code_for(error)
            continue
        if not args.quiet:
            emit(report.summary())
    return exit_code
