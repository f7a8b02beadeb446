"""Plain-text renderings of tool results, written for a model to read (and the demo to print).

The structured content of a result carries everything; the text says the same in a few
lines: what was found, ranked, with the matching excerpt, and where the answer came from.
"""

from __future__ import annotations

from collections.abc import Mapping

from opindex.envelope import (
    ActivityListResponse,
    GlobalSearchResponse,
    LookupResponse,
    ReadMeta,
    RecordResponse,
    SearchMeta,
    SearchResponse,
    SearchResult,
    WorkPackageListResponse,
)
from opindex.mcp.status_report import IndexStatusReport
from opindex.mcp.wire import (
    AGENDA_FIELDS,
    agenda_items,
    record_comments,
    repeated_fields,
    shown_attributes,
)
from opindex.service import KIND_LABELS as KINDS_IN_WORDS
from opindex.service import token_texts

KIND_LABELS: Mapping[str, tuple[str, str]] = {
    **dict(KINDS_IN_WORDS.items()),
    "record": ("record", "records"),
}
SNIPPET_WIDTH = 240
BRIEF_SNIPPET_WIDTH = 110


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
    if meta.index_state == "damaged":
        return "answered live from OpenProject (the index is damaged; a sync rebuilds it)"
    if meta.index_state == "stale":
        return (
            f"answered live from OpenProject (the index is stale, synced "
            f"{describe_age(meta.age_seconds)} ago)"
        )
    return "answered live from OpenProject"


def result_heading(result: SearchResult, *, scored: bool = True, brief: bool = False) -> str:
    """``#1001 Renew TLS certificate … (score 0.93, project Operations)``; *brief* puts the
    matched fields in the parentheses too (``… (1.00, Operations, Closed; subject)``)."""
    extras = [(f"{result.score:.2f}" if brief else f"score {result.score:.2f}")] if scored else []
    if result.project is not None and result.project.name:
        extras.append(result.project.name if brief else f"project {result.project.name}")
    status = result.attributes.get("status_name")
    if status:
        extras.append(str(status) if brief else f"status {status}")
    start = result.attributes.get("start_time")
    if isinstance(start, str) and start:
        extras.append(start[:10] if brief else f"starts {start[:16].replace('T', ' ')}")
    suffix = f" ({', '.join(extras)})" if extras else ""
    if brief and scored and result.matched_fields:
        suffix = suffix[:-1] + f"; {', '.join(result.matched_fields)})"
    return f"#{result.id} {result.title}{suffix}"


def shorten(text: str, width: int = SNIPPET_WIDTH) -> str:
    """One line of at most ``width`` characters."""
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1].rstrip() + "…"


def _repeats_title(snippet: str, result: SearchResult) -> bool:
    return " ".join(snippet.split()) == " ".join(result.title.split())


def result_lines(result: SearchResult, *, brief: bool = False) -> list[str]:
    """The lines that describe one result under its heading (indented by the caller).

    Nothing is said twice: a snippet that is the title, and a comment's or agenda item's
    excerpt that is the result's own snippet, are left out. *brief* leaves out the matched
    fields (the heading names them) and the URL, and shortens excerpts.
    """
    lines: list[str] = []
    width = BRIEF_SNIPPET_WIDTH if brief else SNIPPET_WIDTH
    if result.matched_fields and not brief:
        lines.append(f"matched: {', '.join(result.matched_fields)}")
    if result.snippet and not _repeats_title(result.snippet, result):
        lines.append(f"“{shorten(result.snippet, width)}”")
    sub_width = BRIEF_SNIPPET_WIDTH if brief else 160
    for item in result.matched_agenda_items or []:
        lines.append(
            f"agenda item {item.id} “{item.title}”{_excerpt(item.snippet, result, sub_width)}"
        )
    for comment in result.matched_comments or []:
        excerpt = _excerpt(comment.snippet, result, sub_width)
        if excerpt or not brief:
            lines.append(f"comment {comment.id}{excerpt}")
    for attachment in result.matched_attachments or []:
        excerpt = _excerpt(attachment.snippet, result, sub_width)
        lines.append(f"in attached file {attachment.file_name!r} (#{attachment.id}){excerpt}")
    if result.url and not brief:
        lines.append(result.url)
    return lines


def _excerpt(snippet: str | None, result: SearchResult, width: int = 160) -> str:
    """``: “…”`` for a sub-record's snippet, unless the result's own snippet shows it."""
    if not snippet or snippet == result.snippet:
        return ""
    return f": “{shorten(snippet, width)}”"


def dropped_words(meta: SearchMeta) -> list[str]:
    """The words of the caller's query that the relaxed query no longer contains."""
    kept = set(token_texts(meta.effective_query))
    dropped = [word for word in token_texts(meta.original_query) if word not in kept]
    return list(dict.fromkeys(dropped))


def relaxation_notice(meta: SearchMeta) -> str | None:
    """One sentence saying how the query was relaxed: what was dropped, what was searched."""
    strategy = meta.fallback_strategy
    if strategy is None:
        return None
    original, effective = meta.original_query, meta.effective_query
    if strategy == "drop_term":
        dropped = ", ".join(repr(word) for word in dropped_words(meta)) or "a word"
        return (
            f"Relaxed: nothing matched every word of {original!r}; dropped {dropped} and "
            f"searched {effective!r}."
        )
    if strategy == "wildcard_suffix":
        return (
            f"Relaxed: nothing matched {original!r} as written; searched its words as "
            f"prefixes ({effective!r})."
        )
    return (
        f"Relaxed: nothing matched {original!r} as written; searched related terms {effective!r}."
    )


def meta_lines(meta: SearchMeta) -> list[str]:
    """Caveats worth telling after the results: degraded reads and notes (the relaxation
    notice comes first, see ``relaxation_notice``)."""
    lines: list[str] = []
    if meta.degraded:
        failures = meta.enrichment_failures
        lines.append(
            f"Degraded: {failures} record(s) could not be read in full; they were ranked on "
            "their titles only."
        )
    lines.extend(meta.notes)
    return lines


def _filtered(meta: SearchMeta) -> bool:
    return any(note.startswith("nothing matched within the filters") for note in meta.notes)


def render_search(response: SearchResponse, *, brief: bool = False) -> str:
    """The text content of a search result: the relaxation notice first, if any."""
    meta = response.meta
    query = f" for {meta.original_query!r}" if meta.original_query else ""
    shown = len(response.results)
    total = f" (of {meta.total})" if meta.total > shown else ""
    order = "most recently updated first" if not query or meta.sort == "updated" else "best first"
    head = (
        f"{plural(shown, meta.kind)}{total}{query} [{meta.match_mode}], {order}, "
        f"{describe_source(meta)}."
    )
    notice = relaxation_notice(meta)
    lines = [line for line in (notice, meta.notice) if line] + [head]  # notices first
    scored = bool(meta.original_query.strip())
    for rank, result in enumerate(response.results, start=1):
        lines.append(f"{rank}. {result_heading(result, scored=scored, brief=brief)}")
        lines.extend(f"   {line}" for line in result_lines(result, brief=brief))
    if not response.results:
        lines.append(
            "No record matched. Try other words, fewer words, or matchMode 'fuzzy'."
            if meta.match_mode == "exact"
            else "No record matched. Try other or fewer words"
            + (", or fewer filters." if _filtered(meta) else ".")
        )
    lines.extend(meta_lines(meta))
    lines.extend(cursor_lines(meta.next_cursor))
    return "\n".join(lines)


def cursor_lines(cursor: str | None) -> list[str]:
    """The line telling how to get the next page (none on the last page)."""
    return [f"More results: call again with cursor {cursor!r}."] if cursor else []


def render_global(response: GlobalSearchResponse, *, brief: bool = False) -> str:
    """The text content of a search across kinds: one ranking, each result's kind named,
    then how each kind was answered and which could not be searched."""
    meta = response.meta
    query = f" for {meta.original_query!r}" if meta.original_query else ""
    shown = len(response.results)
    total = f" (of {meta.total})" if meta.total > shown else ""
    kinds = ", ".join(KIND_LABELS[answer.kind][1] for answer in meta.kinds)
    order = "most recently updated first" if not query or meta.sort == "updated" else "best first"
    lines = [f"{plural(shown, 'record')}{total}{query} across {kinds}, {order}."]
    relaxed = [a for a in meta.kinds if a.fallback_strategy is not None]
    if relaxed:
        lines.insert(
            0,
            f"Relaxed: nothing matched {meta.original_query!r} as written; searched "
            + "; ".join(f"{KIND_LABELS[a.kind][1]}: {a.effective_query!r}" for a in relaxed)
            + ".",
        )
    scored = bool(meta.original_query.strip())
    for rank, result in enumerate(response.results, start=1):
        label = KIND_LABELS[result.kind][0]
        lines.append(f"{rank}. [{label}] {result_heading(result, scored=scored, brief=brief)}")
        lines.extend(f"   {line}" for line in result_lines(result, brief=brief))
    if not response.results:
        lines.append("No record of these kinds matched. Try other or fewer words.")
    sources = sorted(
        {
            f"the {a.index_state} index" if a.source == "index" else "OpenProject live"
            for a in meta.kinds
        }
    )
    lines.append(f"Answered from {' and '.join(sources)}.")
    for answer in meta.kinds:
        lines.extend(f"{KIND_LABELS[answer.kind][1]}: {note}" for note in answer.notes)
    for missing in meta.not_searched:
        lines.append(f"Not searched: {KIND_LABELS[missing.kind][1]} — {missing.reason}.")
    lines.extend(cursor_lines(meta.next_cursor))
    if meta.notice:
        lines.insert(1 if relaxed else 0, meta.notice)  # first, after a relaxation notice
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
    lines.extend(cursor_lines(listing.next_cursor))
    return "\n".join(lines)


def render_record(response: RecordResponse) -> str:
    """The text content of one whole record: its attributes, then every field that says
    something new (a meeting's location or author is not repeated, its agenda items come
    grouped), a work package's comments with their authors and dates."""
    record = response.record
    singular = KIND_LABELS.get(record.kind, (record.kind, ""))[0]
    lines = [f"{singular.capitalize()} #{record.id}: {record.title}"]
    if record.project is not None and record.project.name:
        lines.append(f"project: {record.project.name}")
    for key, value in shown_attributes(record.attributes).items():
        if value is not None and value != "" and not key.endswith("_id"):
            lines.append(f"{key.removesuffix('_name').replace('_', ' ')}: {value}")
    if record.updated_at is not None:
        lines.append(f"updated: {record.updated_at:%Y-%m-%d %H:%M} UTC")
    if record.url:
        lines.append(f"url: {record.url}")
    comments = record_comments(record)
    skipped = repeated_fields(record) | ({"comments"} if comments else set())
    agenda = agenda_items(record) if record.kind == "meeting" else []
    if agenda:
        skipped |= set(AGENDA_FIELDS)
        lines.append("agenda items:")
        for item in agenda:
            notes = f": {item['notes']}" if item.get("notes") else ""
            title = item.get("title") or f"item {item['id']}"
            lines.append(f"  - {title}{notes}")
            lines.extend(f"    outcome: {outcome}" for outcome in item.get("outcomes", []))
    for name, values in record.fields.items():
        texts = [value.text for value in values if value.text.strip()]
        if not texts or name in skipped:
            continue
        lines.append(f"{name.replace('_', ' ')}:")
        lines.extend(f"  {text}" for text in texts)
    if comments:
        lines.append("comments:")
        for comment in comments:
            who = comment.get("author") or "someone"
            when = f" on {comment['createdAt'][:10]}" if comment.get("createdAt") else ""
            internal = " [internal]" if comment.get("internal") else ""
            lines.append(f"  #{comment['id']} by {who}{when}{internal}: {comment['text']}")
    for relation in response.relations or []:
        title = f" {relation.title}" if relation.title else ""
        lines.append(f"relation: {relation.type} #{relation.id}{title}")
    if response.attachments:
        lines.append(f"attachments: {', '.join(response.attachments)}")
    lines.append(f"({describe_read(response.meta)})")
    lines.extend(response.meta.notes)
    return "\n".join(lines)


def render_lookup(found: LookupResponse) -> str:
    """The text content of the look-up tool: one entry a line."""
    lines = [f"{len(found.results)} {found.kind} visible to this account:"]
    for entry in found.results:
        handle = f" ({entry.handle})" if entry.handle else ""
        closed = " [closed]" if entry.closed else ""
        me = " [you]" if found.me is not None and entry.id == found.me else ""
        lines.append(f"- {entry.id}: {entry.name}{handle}{closed}{me}")
    lines.extend(found.meta.notes)
    return "\n".join(lines)


def render_status(report: IndexStatusReport) -> str:
    """The text content of the index status tool."""
    lines = []
    for tenant in report.tenants:
        documents = ", ".join(
            f"{count} {name.replace('_', ' ')}" for name, count in tenant.documents.items()
        )
        if tenant.last_sync_at is not None:
            synced = f"last synced {describe_age(tenant.age_seconds)} ago"
        elif tenant.freshness == "missing":
            synced = "never synced"
        else:  # an index to read, but the state database holding its age cannot be read
            synced = "last sync time unknown"
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
