"""``opindex status``: per tenant, freshness, last sync and error, documents, size, capabilities."""

from __future__ import annotations

import argparse
import json
from datetime import UTC, datetime
from typing import Any

from opindex.cli.config_option import add_config_argument
from opindex.cli.sync_command import selected_tenants
from opindex.cli.terminal_text import visible
from opindex.config import load_config
from opindex.service import KIND_KEYS, KIND_LABELS, KINDS, TenantStatus, tenant_status


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``opindex status`` and its options."""
    parser = subparsers.add_parser(
        "status",
        help="show each tenant's index: freshness, last sync, documents, size",
        description=(
            "Show, per tenant: state (fresh, stale, missing, syncing), when the last "
            "successful sync finished, the last error, documents per kind, index size, "
            "the server capabilities detected, the last manifest comparison, webhook "
            "deliveries and the progress of an unfinished full sync."
        ),
    )
    add_config_argument(parser)
    parser.add_argument("--tenant", metavar="NAME", help="only this tenant")
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")
    parser.add_argument(
        "--verify",
        action="store_true",
        help=(
            "also read every file of the live index generation against the checksums of "
            "its last commit and run SQLite's full integrity_check on the state database"
        ),
    )


def run(args: argparse.Namespace) -> int:
    """Print the status of the selected tenants; always exit 0 once configured."""
    config = load_config(args.config)
    now = datetime.now(UTC)
    statuses = [
        tenant_status(tenant, config.data_dir, clock=lambda: now, verify=args.verify)
        for tenant in selected_tenants(config, args.tenant)
    ]
    if args.json:
        print(json.dumps({"tenants": [s.to_json() for s in statuses]}, indent=2))
    else:
        print(visible("\n\n".join(render(status, now) for status in statuses)))
    return 0


def render(status: TenantStatus, now: datetime) -> str:
    """The status of one tenant as a few human-readable lines."""
    documents = status.documents
    lines = [f"{status.tenant}: {status.state}"]
    if status.syncing is not None:
        holder = status.syncing
        lines.append(
            f"  {holder.purpose} running in process {holder.pid} since {_when(holder.since, now)}"
        )
    if status.last_sync_at is None and status.freshness == "stale":
        lines.append("  last successful sync: unknown (the state database cannot be read)")
    else:
        lines.append(f"  last successful sync: {_when(status.last_sync_at, now)}")
    lines.append(
        "  documents: "
        + ", ".join(f"{documents.get(KIND_KEYS[kind], 0)} {KIND_LABELS[kind][1]}" for kind in KINDS)
    )
    outcomes = status.attachments.get("by_outcome") or {}
    if outcomes:
        reasons = status.attachments.get("by_reason") or {}
        why = ", ".join(f"{reason} {count}" for reason, count in sorted(reasons.items()))
        lines.append(
            "  attached files: "
            + ", ".join(f"{count} {outcome}" for outcome, count in sorted(outcomes.items()))
            + (f" ({why})" if why else "")
        )
    if status.index_bytes is not None:
        lines.append(f"  index: {_size(status.index_bytes)} (generation {status.generation})")
    if status.last_error:
        lines.append(f"  last error: {status.last_error}")
    manifest = status.manifest
    if manifest is not None:
        lines.append(
            f"  last manifest: {manifest.listed} work packages on the server, {manifest.added} "
            f"added, {manifest.changed} changed, {manifest.removed} removed "
            f"(run {manifest.run_id}, {_when(manifest.finished_at, now)})"
        )
    if status.whole_listing_at is not None:
        lines.append(f"  whole work-package listing: {_when(status.whole_listing_at, now)}")
    if status.webhooks:
        hooks = status.webhooks
        lines.append(
            f"  webhooks: {hooks.get('accepted', 0)} accepted, {hooks.get('refused', 0)} "
            f"refused, {hooks.get('ignored', 0)} ignored"
        )
    checkpoint = status.checkpoint
    if checkpoint is not None:
        problem = status.checkpoint_problem
        lines.append(
            f"  unfinished {checkpoint.run_kind} sync: {checkpoint.records_done} of "
            f"{checkpoint.records_total} work packages committed in {checkpoint.checkpoints} "
            f"checkpoint(s), last {_when(checkpoint.updated_at, now)}; "
            + (
                "the next sync resumes it"
                if problem is None
                else f"the next sync discards it ({problem}) and builds a fresh generation"
            )
        )
    server = (status.capabilities or {}).get("server")
    if isinstance(server, dict):
        lines.append(f"  server: {_capabilities(server)}")
    lines.extend(f"  problem: {problem}" for problem in status.problems)
    lines.extend(f"  verified: {line}" for line in status.verified)
    return "\n".join(lines)


def _when(moment: datetime | None, now: datetime) -> str:
    if moment is None:
        return "never"
    seconds = max(0.0, (now - moment).total_seconds())
    if seconds < 120:
        ago = f"{seconds:.0f} s ago"
    elif seconds < 7200:
        ago = f"{seconds / 60:.0f} min ago"
    elif seconds < 172800:
        ago = f"{seconds / 3600:.1f} h ago"
    else:
        ago = f"{seconds / 86400:.1f} days ago"
    return f"{moment.strftime('%Y-%m-%d %H:%M:%S UTC')} ({ago})"


def _size(size: int) -> str:
    value = float(size)
    for unit in ("B", "KB", "MB", "GB"):
        if value < 1024 or unit == "GB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{size} B"


def _capabilities(server: dict[str, Any]) -> str:
    def flag(name: str) -> str:
        value = server.get(name)
        return "unknown" if value is None else ("yes" if value else "no")

    return (
        f"meetings {flag('meetings')}, agenda items {flag('meeting_agenda_items')}, "
        f"outcomes {flag('meeting_outcomes')}, wiki list {flag('wiki_list')}, "
        f"wiki text {flag('wiki_text')}"
    )
