"""``opindex doctor``: check the configuration, reach each tenant, name the first thing wrong."""

from __future__ import annotations

import argparse
import asyncio
import sys
from dataclasses import dataclass
from typing import TextIO

from opindex.cli.config_option import add_config_argument
from opindex.cli.exit_codes import EXIT_OK, EXIT_USAGE, exit_code_for
from opindex.cli.sync_command import selected_tenants
from opindex.cli.terminal_text import visible
from opindex.config import Config, TenantConfig, load_config
from opindex.errors import ConfigError, OpindexError
from opindex.service import reach_tenant, tenant_status

"""A diagnosis reports the first failure at once instead of retrying it."""


@dataclass(frozen=True, slots=True)
class Check:
    """One line of the diagnosis: what was checked, and the error if it failed."""

    subject: str
    message: str
    error: OpindexError | None = None


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``opindex doctor`` and its options."""
    parser = subparsers.add_parser(
        "doctor",
        help="check the configuration and reach every tenant; name the first problem",
        description=(
            "Load the configuration, reach each tenant's OpenProject with its key, and look "
            "at its index. Prints one line per check; the exit code is the one of the first "
            "problem (0 when everything works)."
        ),
    )
    add_config_argument(parser)
    parser.add_argument("--tenant", metavar="NAME", help="only this tenant")


def run(args: argparse.Namespace) -> int:
    """Diagnose and print; exit with the code of the first problem found."""
    out = sys.stdout
    try:
        config = load_config(args.config)
    except ConfigError as error:
        out.write(visible(f"FAIL configuration: {error}") + "\n")
        out.write("First problem: the configuration. Fix it (see `opindex init`) and rerun.\n")
        return EXIT_USAGE
    source = config.source if config.source is not None else "the environment"
    checks = [Check("configuration", f"{len(config.tenants)} tenant(s) from {source}")]
    for tenant in selected_tenants(config, args.tenant):
        checks.extend(asyncio.run(_check_tenant(config, tenant)))
    return report(checks, out)


async def _check_tenant(config: Config, tenant: TenantConfig) -> list[Check]:
    subject = f"tenant {tenant.name}"
    try:
        user = await reach_tenant(tenant)
    except OpindexError as error:
        return [Check(subject, str(error), error)]
    login = f" ({user.login})" if user.login else ""
    checks = [Check(subject, f"{tenant.base_url} reached as {user.name or user.id}{login}")]
    try:
        status = tenant_status(tenant, config.data_dir)
    except OpindexError as error:
        return [*checks, Check(f"{subject} index", str(error), error)]
    hint = {
        "missing": "; run `opindex sync` before serving a large instance over stdio",
        "stale": "; `opindex sync` brings it up to date",
    }.get(status.freshness, "")
    checks.append(Check(f"{subject} index", f"{status.state}{hint}"))
    return checks


def report(checks: list[Check], out: TextIO) -> int:
    """Print the checks; the exit code of the first failed one (0 when none failed)."""
    for check in checks:
        line = f"{'FAIL' if check.error else 'ok  '} {check.subject}: {check.message}"
        out.write(visible(line) + "\n")
    failed = next((check for check in checks if check.error is not None), None)
    if failed is None or failed.error is None:
        out.write("Everything checked works.\n")
        return EXIT_OK
    out.write(visible(f"First problem: {failed.subject}.") + "\n")
    return exit_code_for(failed.error)
