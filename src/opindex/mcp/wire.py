"""The structured content of the MCP tools: compact, camelCase, nothing said twice.

The service's envelopes (``opindex.envelope``) carry everything; a model reading a tool
result pays for every character, so the tools send a lean view of them: no nulls, no
empty lists, one key style, a snippet only when it adds to the title, and the per-field
match details, ids and people only at ``detail: full``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel

from opindex.envelope import (
    GlobalSearchResponse,
    LookupEntry,
    LookupResponse,
    ReadMeta,
    RecordOut,
    RecordResponse,
    SearchMeta,
    SearchResponse,
    SearchResult,
    WordMatch,
    WorkPackageListResponse,
)
from opindex.service import APPROXIMATE, ATTACHMENT_META, COMMENT_META, AttributeValue

Detail = Literal["brief", "full"]


class Wire(BaseModel):
    """Base of the wire models: camelCase keys on the wire, snake_case in Python."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True)

    def wire(self) -> dict[str, Any]:
        """The JSON form without nulls, empty lists and empty objects."""
        dumped = self.model_dump(mode="json", by_alias=True)
        pruned = prune_json(dumped)
        for name, info in type(self).model_fields.items():  # required members stay
            key = info.alias or name
            if info.is_required() and key in dumped:
                pruned.setdefault(key, dumped[key])
        return pruned


def prune_json(value: dict[str, Any]) -> dict[str, Any]:
    """*value* without nulls, empty lists and empty objects, at any depth."""
    pruned: dict[str, Any] = _prune(value)
    return pruned


def _prune(value: Any) -> Any:
    if isinstance(value, dict):
        pruned = {key: _prune(item) for key, item in value.items()}
        return {key: item for key, item in pruned.items() if item not in (None, [], {})}
    if isinstance(value, list):
        return [_prune(item) for item in value]
    return value


class SubMatchOut(Wire):
    """A comment or agenda item that matched; its snippet unless the hit's shows it."""

    id: int
    title: str | None = None
    snippet: str | None = None


class FieldScoreOut(Wire):
    """One matching field (``detail: full``); ``ref`` is the comment or agenda item."""

    field: str
    score: float
    ref: int | None = None


class HitOut(Wire):
    """One record of a search or listing."""

    id: int
    title: str
    score: float | None = None
    project: str | None = None
    status: str | None = None
    type: str | None = None
    assignee: str | None = None
    start_time: str | None = None
    updated_at: datetime | None = None
    url: str | None = None
    matched_fields: list[str] | None = None
    snippet: str | None = None
    matched_comments: list[SubMatchOut] | None = None
    matched_agenda_items: list[SubMatchOut] | None = None
    matched_attachments: list[SubMatchOut] | None = None
    near: str | None = None
    """``detail: brief``: the record's words that matched a query word only approximately
    (``checked`` for ``checkout``); ``meta.nearMatches`` says how (DECISIONS D200)."""
    matched_words: list[str] | None = None
    """``detail: full``: every query word this record matched: the word alone when the
    record holds it, else ``word: how 'record word'`` (prefix, substring, typo, stem,
    concept, id)."""
    kind: str | None = None
    """Set in a search across kinds, where results of several kinds are ranked together."""
    # detail: full
    match_type: str | None = None
    matches: list[FieldScoreOut] | None = None
    attributes: dict[str, AttributeValue] | None = None


class MetaOut(Wire):
    """Where the answer came from and how far to trust it."""

    tenant: str
    source: Literal["index", "live"]
    index_state: Literal["fresh", "stale", "missing", "damaged"]
    indexed_at: datetime | None = None
    age_seconds: float | None = None
    total: int | None = None
    degraded: bool | None = None
    enrichment_failures: int | None = None
    wildcard_fallback: bool | None = None
    fallback_strategy: str | None = None
    original_query: str | None = None
    effective_query: str | None = None
    match_mode: str | None = None
    sort: str | None = None
    notes: list[str] | None = None
    unmatched_words: list[str] | None = None
    """Query words no returned result matched."""
    near_matches: list[str] | None = None
    """Approximate matches in the results: ``query word≈record word (how)``."""
    notice: str | None = None
    """Read first: words nothing matched, near matches, or why nothing was searched."""
    next_cursor: str | None = None
    """Pass as ``cursor`` with the same arguments for the next page."""


class SearchOut(Wire):
    """A search or listing: the records, best (or newest) first, and the meta."""

    results: list[HitOut]
    meta: MetaOut


class RecordBody(Wire):
    """One whole record: attributes (camelCase, no nulls) and every field's text."""

    id: int
    kind: str
    title: str
    project: str | None = None
    project_id: int | None = None
    updated_at: datetime | None = None
    url: str | None = None
    attributes: dict[str, Any] | None = None
    fields: dict[str, list[str]] | None = None
    comments: list[dict[str, Any]] | None = None
    agenda_items: list[dict[str, Any]] | None = None
    relations: list[dict[str, Any]] | None = None
    attachments: list[str] | None = None


class RecordOutWire(Wire):
    """``get_*``: one record and where it was read."""

    record: RecordBody
    meta: MetaOut


def camel_attributes(attributes: dict[str, AttributeValue]) -> dict[str, AttributeValue]:
    """Record attributes with camelCase keys, nulls and empty strings left out."""
    return {to_camel(key): value for key, value in attributes.items() if value not in (None, "")}


def _snippet(result: SearchResult) -> str | None:
    snippet = result.snippet
    if not snippet or " ".join(snippet.split()) == " ".join(result.title.split()):
        return None
    return snippet


def _subs(items: Iterable[Any], shown: str | None, *, titled: bool) -> list[SubMatchOut]:
    return [
        SubMatchOut(
            id=item.id,
            title=item.title if titled else None,
            snippet=item.snippet if item.snippet and item.snippet != shown else None,
        )
        for item in items
    ]


def hit_out(result: SearchResult, detail: Detail, *, scored: bool = True) -> HitOut:
    """The wire form of one search result."""
    attributes = result.attributes
    snippet = _snippet(result) if scored else None
    shown = result.snippet
    hit = HitOut(
        id=result.id,
        title=result.title,
        score=result.score if scored else None,
        project=result.project.name if result.project is not None else None,
        status=_text(attributes.get("status_name")),
        assignee=_text(attributes.get("assignee_name")),
        start_time=_text(attributes.get("start_time")),
        updated_at=result.updated_at,
        url=result.url,
        matched_fields=result.matched_fields if scored else None,
        near=_near(result) if scored and detail == "brief" else None,
        matched_words=[word_out(m) for m in result.matched_words] if detail == "full" else None,
        snippet=snippet,
        matched_comments=_subs(result.matched_comments or (), shown, titled=False),
        matched_agenda_items=_subs(result.matched_agenda_items or (), shown, titled=True),
        matched_attachments=[
            SubMatchOut(
                id=item.id,
                title=item.file_name,
                snippet=item.snippet if item.snippet and item.snippet != shown else None,
            )
            for item in result.matched_attachments or ()
        ],
    )
    if detail == "full":
        hit.type = _text(attributes.get("type_name"))
        hit.match_type = result.match_type
        if scored:
            hit.matches = [
                FieldScoreOut(field=match.field, score=match.score, ref=match.ref)
                for match in result.matches
            ]
        extra = shown_attributes(attributes)
        if result.project is not None:
            extra["project_id"] = result.project.id
        hit.attributes = camel_attributes(extra)
    return hit


def _near(result: SearchResult) -> str | None:
    """The record's words that matched a query word only approximately, or None."""
    tokens = [m.token for m in result.matched_words if m.how in APPROXIMATE]
    return ", ".join(dict.fromkeys(tokens)) or None


def near_matches(results: Iterable[SearchResult]) -> list[str]:
    """``checkout≈checked (stem)``: each approximate match in *results*, once."""
    found = [
        f"{m.word}≈{m.token} ({m.how})"
        for result in results
        for m in result.matched_words
        if m.how in APPROXIMATE
    ]
    return list(dict.fromkeys(found))


def word_out(match: WordMatch) -> str:
    """``checkout`` for a word the record holds, ``checklist: typo 'checkout'`` else."""
    if match.how == "exact":
        return match.word
    return f"{match.word}: {match.how} {match.token!r}"


def _text(value: AttributeValue) -> str | None:
    return value if isinstance(value, str) and value else None


def meta_out(meta: SearchMeta | ReadMeta, detail: Detail, total: int | None = None) -> MetaOut:
    """The wire form of a search's or a read's meta."""
    out = MetaOut(
        tenant=meta.tenant,
        source=meta.source,
        index_state=meta.index_state,
        age_seconds=None if meta.age_seconds is None else round(meta.age_seconds, 1),
        total=total,
        notes=list(meta.notes),
    )
    if detail == "full":
        out.indexed_at = meta.indexed_at
    if isinstance(meta, SearchMeta):
        out.total = meta.total
        out.degraded = meta.degraded
        out.wildcard_fallback = meta.wildcard_fallback
        out.enrichment_failures = meta.enrichment_failures or None
        out.fallback_strategy = meta.fallback_strategy
        relaxed = meta.fallback_strategy is not None
        if relaxed or detail == "full":
            out.original_query = meta.original_query
            out.effective_query = meta.effective_query
        out.match_mode = meta.match_mode
        out.sort = meta.sort if meta.sort != "relevance" else None
        out.unmatched_words = meta.unmatched_words
        out.notice = meta.notice
        out.next_cursor = meta.next_cursor
    return out


def search_out(response: SearchResponse, detail: Detail) -> SearchOut:
    """The wire form of a search (an empty query lists records unscored)."""
    scored = bool(response.meta.original_query.strip())
    meta = meta_out(response.meta, detail)
    meta.near_matches = near_matches(response.results) if scored else None
    return SearchOut(
        results=[hit_out(result, detail, scored=scored) for result in response.results],
        meta=meta,
    )


class KindOut(Wire):
    """How one kind of a search across kinds was answered."""

    kind: str
    source: str
    index_state: str
    total: int
    fallback_strategy: str | None = None
    effective_query: str | None = None
    notes: list[str] | None = None


class GlobalMetaOut(Wire):
    """Where the answers of a search across kinds came from, kind by kind."""

    tenant: str
    total: int
    kinds: list[KindOut]
    not_searched: list[dict[str, str]] | None = None
    age_seconds: float | None = None
    sort: str | None = None
    unmatched_words: list[str] | None = None
    near_matches: list[str] | None = None
    notice: str | None = None
    next_cursor: str | None = None


class GlobalSearchOut(Wire):
    """A search across kinds: one ranking, each result naming its kind."""

    results: list[HitOut]
    meta: GlobalMetaOut


def global_search_out(response: GlobalSearchResponse, detail: Detail) -> GlobalSearchOut:
    """The wire form of a search across kinds."""
    scored = bool(response.meta.original_query.strip())
    hits = []
    for result in response.results:
        hit = hit_out(result, detail, scored=scored)
        hit.kind = result.kind
        hits.append(hit)
    meta = response.meta
    return GlobalSearchOut(
        results=hits,
        meta=GlobalMetaOut(
            tenant=meta.tenant,
            total=meta.total,
            kinds=[
                KindOut(
                    kind=answer.kind,
                    source=answer.source,
                    index_state=answer.index_state,
                    total=answer.total,
                    fallback_strategy=answer.fallback_strategy,
                    effective_query=answer.effective_query if answer.fallback_strategy else None,
                    notes=answer.notes or None,
                )
                for answer in meta.kinds
            ],
            not_searched=[{"kind": item.kind, "reason": item.reason} for item in meta.not_searched]
            or None,
            age_seconds=None if meta.age_seconds is None else round(meta.age_seconds, 1),
            sort=meta.sort if meta.sort != "relevance" else None,
            unmatched_words=meta.unmatched_words,
            near_matches=near_matches(response.results) if scored else None,
            notice=meta.notice,
            next_cursor=meta.next_cursor,
        ),
    )


class LookupOut(Wire):
    """The look-up tool: entries of one kind; ``me`` is the account's own user id."""

    kind: str
    results: list[LookupEntry]
    me: int | None = None
    meta: MetaOut


def lookup_out(found: LookupResponse) -> LookupOut:
    """The wire form of a look-up."""
    return LookupOut(
        kind=found.kind, results=found.results, me=found.me, meta=meta_out(found.meta, "brief")
    )


def listing_out(listing: WorkPackageListResponse, detail: Detail) -> SearchOut:
    """The wire form of a work-package listing (unranked: no scores, no matches)."""
    meta = meta_out(listing.meta, detail, total=listing.total)
    meta.next_cursor = listing.next_cursor
    return SearchOut(
        results=[hit_out(result, detail, scored=False) for result in listing.results],
        meta=meta,
    )


def repeated_fields(record: RecordOut) -> set[str]:
    """Fields whose every text is already said by the title, the project or an attribute
    (a meeting's ``location``, ``project`` and ``author`` fields)."""
    said = {record.title, record.project.name if record.project else None}
    said |= {value for value in record.attributes.values() if isinstance(value, str)}
    repeated = {"title"}
    for name, values in record.fields.items():
        if values and all(value.text in said for value in values):
            repeated.add(name)
    return repeated


AGENDA_FIELDS = ("agenda_title", "agenda_notes", "outcome_notes")


def agenda_items(record: RecordOut) -> list[dict[str, Any]]:
    """A meeting's agenda items, each once: ``{id, title, notes, outcomes}`` in order."""
    items: dict[int, dict[str, Any]] = {}
    keys = {"agenda_title": "title", "agenda_notes": "notes", "outcome_notes": "outcomes"}
    for name in AGENDA_FIELDS:
        for value in record.fields.get(name, []):
            if value.ref is None or not value.text.strip():
                continue
            item = items.setdefault(value.ref, {"id": value.ref})
            if keys[name] == "outcomes":
                item.setdefault("outcomes", []).append(value.text)
            else:
                item.setdefault(keys[name], value.text)
    return list(items.values())


def shown_attributes(attributes: Mapping[str, AttributeValue]) -> dict[str, AttributeValue]:
    """Attributes worth showing (the comment metadata is shown with the comments)."""
    return {
        key: value
        for key, value in attributes.items()
        if key not in (COMMENT_META, ATTACHMENT_META)
    }


def record_comments(record: RecordOut) -> list[dict[str, Any]]:
    """A work package's comments with author, date and ``internal`` when set, oldest first
    (empty when the comments were not read with their metadata)."""
    raw = record.attributes.get(COMMENT_META)
    if not isinstance(raw, str):
        return []
    try:
        meta = json.loads(raw)
    except ValueError:
        meta = {}
    comments = []
    for value in record.fields.get("comments", []):
        if value.ref is None:
            continue
        author, created, internal = (meta.get(str(value.ref)) or [None, None, False])[:3]
        comment: dict[str, Any] = {"id": value.ref, "author": author, "createdAt": created}
        if internal:
            comment["internal"] = True
        comment["text"] = value.text
        comments.append(prune_json(comment))
    return comments


def record_out(response: RecordResponse) -> RecordOutWire:
    """The wire form of one whole record; a work package's comments with their authors
    and dates when the details could be read."""
    record: RecordOut = response.record
    comments = record_comments(record)
    skipped = repeated_fields(record) | ({"comments"} if comments else set())
    agenda = agenda_items(record) if record.kind == "meeting" else []
    if agenda:
        skipped |= set(AGENDA_FIELDS)
    fields: dict[str, list[str]] = {}
    for name, values in record.fields.items():
        texts = [value.text for value in values if value.text.strip()]
        if texts and name not in skipped:
            fields[to_camel(name)] = texts
    attributes: dict[str, Any] = camel_attributes(shown_attributes(record.attributes))
    body = RecordBody(
        id=record.id,
        kind=record.kind,
        title=record.title,
        project=record.project.name if record.project is not None else None,
        project_id=record.project.id if record.project is not None else None,
        updated_at=record.updated_at,
        url=record.url,
        attributes=attributes,
        fields=fields,
        comments=comments,
        agenda_items=agenda,
        relations=[prune_json(r.model_dump(mode="json")) for r in response.relations or []],
        attachments=response.attachments,
    )
    return RecordOutWire(record=body, meta=meta_out(response.meta, "brief"))
