"""``opindex rebuild``: build a tenant's index afresh beside the live one, then swap it in."""

from __future__ import annotations

import argparse

from opindex.cli.config_option import add_config_argument
from opindex.cli.sync_command import (
    add_quiet_argument,
    progress_for,
    run_interruptibly,
)
from opindex.cli.terminal_text import visible
from opindex.config import load_config
from opindex.service import rebuild_tenant


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``opindex rebuild`` and its options."""
    parser = subparsers.add_parser(
        "rebuild",
        help="rebuild a tenant's index from scratch, swapping it in atomically",
        description=(
            "Read everything the tenant's account can see into a new index generation "
            "beside the live one, then make it live in one atomic step. Searches keep "
            "using the old index until then. Exit code 3 if a sync of the tenant is running."
        ),
    )
    parser.add_argument("--tenant", metavar="NAME", required=True, help="the tenant to rebuild")
    add_config_argument(parser)
    add_quiet_argument(parser)


def run(args: argparse.Namespace) -> int:
    """Rebuild one tenant; errors propagate to the dispatcher (exit codes there)."""
    config = load_config(args.config)
    tenant = config.tenant(args.tenant)
    report = run_interruptibly(
        rebuild_tenant(tenant, config.data_dir, progress=progress_for(args.quiet))
    )
    if not args.quiet:
        print(visible(report.summary()), flush=True)
    return 0
