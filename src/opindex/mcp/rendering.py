"""Plain-text renderings of tool results, written for a model to read (and the demo to print).

The structured content of a result carries everything; the text says the same in a few
lines: what was found, ranked, with the matching excerpt, and where the answer came from.
"""

from __future__ import annotations

from collections.abc import Mapping

from opindex.envelope import (
    ActivityListResponse,
    ReadMeta,
    RecordResponse,
    SearchMeta,
    SearchResponse,
    SearchResult,
    WorkPackageListResponse,
)
from opindex.mcp.status_report import IndexStatusReport

KIND_LABELS: Mapping[str, tuple[str, str]] = {
    "work_package": ("work package", "work packages"),
    "wiki_page": ("wiki page", "wiki pages"),
    "meeting": ("meeting", "meetings"),
}
SNIPPET_WIDTH = 240


def plural(count: int, kind: str) -> str:
    """``1 work package`` / ``3 meetings``."""
    singular, many = KIND_LABELS.get(kind, (kind, f"{kind}s"))
    return f"{count} {singular if count == 1 else many}"


def describe_age(seconds: float | None) -> str:
    """``42 s``, ``5 min``, ``3 h``, ``2 d`` (``unknown`` without a value)."""
    if seconds is None:
        return "unknown"
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 90 * 60:
        return f"{seconds / 60:.0f} min"
    if seconds < 36 * 3600:
        return f"{seconds / 3600:.0f} h"
    return f"{seconds / 86400:.0f} d"


def describe_source(meta: SearchMeta) -> str:
    """Where the answer came from and how fresh it is, in one clause."""
    if meta.source == "index":
        state = "stale" if meta.index_state == "stale" else "fresh"
        return f"answered from the {state} index (synced {describe_age(meta.age_seconds)} ago)"
    if meta.index_state == "missing":
        return "answered live from OpenProject (no index yet)"
    if meta.index_state == "stale":
        return (
            f"answered live from OpenProject (the index is stale, synced "
            f"{describe_age(meta.age_seconds)} ago)"
        )
    return "answered live from OpenProject"


def result_heading(result: SearchResult, *, scored: bool = True) -> str:
    """``#1001 Renew TLS certificate … (score 0.93, project Operations)``."""
    extras = [f"score {result.score:.2f}"] if scored else []
    if result.project is not None and result.project.name:
        extras.append(f"project {result.project.name}")
    status = result.attributes.get("status_name")
    if status:
        extras.append(f"status {status}")
    suffix = f" ({', '.join(extras)})" if extras else ""
    return f"#{result.id} {result.title}{suffix}"


def shorten(text: str, width: int = SNIPPET_WIDTH) -> str:
    """One line of at most ``width`` characters."""
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1].rstrip() + "…"


def result_lines(result: SearchResult) -> list[str]:
    """The lines that describe one result under its heading (indented by the caller)."""
    lines: list[str] = []
    if result.matched_fields:
        lines.append(f"matched: {', '.join(result.matched_fields)}")
    if result.snippet:
        lines.append(f"“{shorten(result.snippet)}”")
    for item in result.matched_agenda_items or []:
        lines.append(f"agenda item {item.id} “{item.title}”{_excerpt(item.snippet, result)}")
    for comment in result.matched_comments or []:
        lines.append(f"comment {comment.id}{_excerpt(comment.snippet, result)}")
    if result.url:
        lines.append(result.url)
    return lines


def _excerpt(snippet: str | None, result: SearchResult) -> str:
    """``: “…”`` for a sub-record's snippet, unless the result's own snippet shows it."""
    if not snippet or snippet == result.snippet:
        return ""
    return f": “{shorten(snippet, 160)}”"


def meta_lines(meta: SearchMeta) -> list[str]:
    """Caveats worth telling: relaxed query, degraded reads, notes."""
    lines: list[str] = []
    if meta.fallback_strategy is not None:
        lines.append(
            f"Nothing matched {meta.original_query!r} as written; these results are for the "
            f"relaxed query {meta.effective_query!r} ({meta.fallback_strategy.replace('_', ' ')})."
        )
    elif meta.wildcard_fallback:
        lines.append("Some terms were matched as word prefixes (wildcard fallback).")
    if meta.degraded:
        failures = meta.enrichment_failures
        lines.append(
            f"Degraded: {failures} record(s) could not be read in full; they were ranked on "
            "their titles only."
        )
    lines.extend(meta.notes)
    return lines


def render_search(response: SearchResponse) -> str:
    """The text content of a search result."""
    meta = response.meta
    query = f" for {meta.original_query!r}" if meta.original_query else ""
    shown = len(response.results)
    total = f" (of {meta.total})" if meta.total > shown else ""
    head = f"{plural(shown, meta.kind)}{total}{query} [{meta.match_mode}], {describe_source(meta)}."
    lines = [head]
    for rank, result in enumerate(response.results, start=1):
        lines.append(f"{rank}. {result_heading(result)}")
        lines.extend(f"   {line}" for line in result_lines(result))
    if not response.results:
        lines.append(
            "No record matched. Try other words, fewer words, or matchMode 'fuzzy'."
            if meta.match_mode == "exact"
            else "No record matched. Try other or fewer words."
        )
    lines.extend(meta_lines(meta))
    return "\n".join(lines)


def describe_read(meta: ReadMeta) -> str:
    """Where a non-search answer came from, in one clause."""
    if meta.source == "index":
        return (
            f"read from the {meta.index_state} index (synced {describe_age(meta.age_seconds)} ago)"
        )
    return "read live from OpenProject"


def render_activities(listing: ActivityListResponse) -> str:
    """The text content of an activity listing."""
    count = len(listing.results)
    if listing.ranked:
        ranked = f"matching comment{'' if count == 1 else 's'}, best first"
    else:
        ranked = f"activit{'y' if count == 1 else 'ies'} in order"
    lines = [
        f"Work package #{listing.work_package_id}: {count} {ranked} "
        f"(of {listing.total} activities), {describe_read(listing.meta)}."
    ]
    for activity in listing.results:
        who = activity.user.name if activity.user is not None and activity.user.name else "someone"
        when = f" on {activity.created_at:%Y-%m-%d}" if activity.created_at else ""
        score = f" (score {activity.score:.2f})" if listing.ranked else ""
        internal = " [internal]" if activity.internal else ""
        text = activity.snippet if listing.ranked and activity.snippet else activity.comment
        lines.append(f"- activity {activity.id} by {who}{when}{score}{internal}")
        if text.strip():
            lines.append(f"  “{shorten(text)}”")
    if listing.ranked and not listing.results:
        lines.append("No comment matched. Try other words, or omit the query to list them all.")
    lines.extend(listing.meta.notes)
    return "\n".join(lines)


def render_work_package_list(listing: WorkPackageListResponse) -> str:
    """The text content of a filtered work-package listing."""
    shown = len(listing.results)
    total = f" of {listing.total}" if listing.total > shown else ""
    lines = [
        f"{shown}{total} work package{'s' if listing.total != 1 else ''}, newest update "
        f"first, {describe_read(listing.meta)}."
    ]
    for result in listing.results:
        lines.append(f"- {result_heading(result, scored=False)}")
    lines.extend(listing.meta.notes)
    return "\n".join(lines)


def render_record(response: RecordResponse) -> str:
    """The text content of one whole record: its attributes, then every field."""
    record = response.record
    singular = KIND_LABELS.get(record.kind, (record.kind, ""))[0]
    lines = [f"{singular.capitalize()} #{record.id}: {record.title}"]
    if record.project is not None and record.project.name:
        lines.append(f"project: {record.project.name}")
    for key, value in record.attributes.items():
        if value is not None and value != "":
            lines.append(f"{key}: {value}")
    if record.updated_at is not None:
        lines.append(f"updated: {record.updated_at:%Y-%m-%d %H:%M} UTC")
    if record.url:
        lines.append(f"url: {record.url}")
    for name, values in record.fields.items():
        texts = [value.text for value in values if value.text.strip()]
        if not texts or name == "title":
            continue
        lines.append(f"{name}:")
        lines.extend(f"  {text}" for text in texts)
    lines.append(f"({describe_read(response.meta)})")
    lines.extend(response.meta.notes)
    return "\n".join(lines)


def render_status(report: IndexStatusReport) -> str:
    """The text content of the index status tool."""
    lines = []
    for tenant in report.tenants:
        documents = ", ".join(
            f"{count} {name.replace('_', ' ')}" for name, count in tenant.documents.items()
        )
        synced = (
            f"last synced {describe_age(tenant.age_seconds)} ago"
            if tenant.last_sync_at is not None
            else "never synced"
        )
        sync = (
            f"; background sync every {tenant.background_sync_seconds} s"
            if tenant.background_sync_seconds
            else ""
        )
        lines.append(f"Tenant {tenant.tenant}: index {tenant.state}, {synced}{sync}.")
        lines.append(f"  documents: {documents or 'none'}")
        if tenant.freshness != "fresh":
            lines.append("  Searches are answered live from OpenProject until the index is fresh.")
        if tenant.last_error:
            lines.append(f"  last sync error: {tenant.last_error}")
        lines.extend(f"  problem: {problem}" for problem in tenant.problems)
    return "\n".join(lines)
