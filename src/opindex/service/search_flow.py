"""One search end to end: route by freshness, run a path with relaxation, build the envelope.

Both paths share everything after ranking (``ResultBuilder``) and the relaxation plan
(``opindex.search.relax``); they differ only in where candidates come from and where
document frequencies for ``drop_term`` come from (the index, or the live session).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from opindex.disclosure import public_detail
from opindex.envelope import (
    MAX_LIMIT,
    AnsweredBy,
    SearchMeta,
    SearchRequest,
    SearchResponse,
    WordMatch,
)
from opindex.errors import IndexUnavailableError, OpenProjectError
from opindex.index import IndexBackend, updated_timestamp
from opindex.live import LiveHit, LiveOutcome
from opindex.records import Record
from opindex.search import (
    KIND_LABELS,
    Alternative,
    Query,
    Ranked,
    RelaxationOutcome,
    parse_query,
)
from opindex.service.answer_page import Paging, cut_page, paging, widened
from opindex.service.index_path import HitList, search_index
from opindex.service.rarity import TIE_WINDOW, rarity_order, tie_straddles
from opindex.service.references import Reference, parse_reference, referenced_record
from opindex.service.relaxed_search import (
    Thesaurus,
    search_with_relaxation,
    search_with_relaxation_async,
)
from opindex.service.request_filters import check_filters, index_filters
from opindex.service.result_builder import ResultBuilder, ScoredHit
from opindex.service.routing import choose_route, is_upstream_unavailable
from opindex.service.tenant import Tenant
from opindex.service.unsearchable import no_words, unsearchable
from opindex.service.word_accounting import ExactlyHeld, account, query_words
from opindex.sync import Freshness

logger = logging.getLogger(__name__)


@dataclass(slots=True)
class PathAnswer:
    """What one path produced, before it becomes an envelope."""

    source: AnsweredBy
    hits: Sequence[ScoredHit]
    query: Query
    outcome: RelaxationOutcome
    total: int
    degraded: bool = False
    enrichment_failures: int = 0
    notes: list[str] = field(default_factory=list)
    frequency: Callable[[str], int] | None = None
    """How many records of the kind match a word by the scorer's rules (None: unknown)."""
    held: ExactlyHeld | None = None
    """Whether some record holds a word itself (None: cannot tell)."""
    commit: str | None = None
    """The index commit the answer was read from (None: answered live)."""


SORT_WINDOW = 1_000
"""With ``sort: updated``, the best this many matches (index path) are ordered by update
time and the newest returned; the live path orders the best ``MAX_LIMIT`` it ranked."""


def newest_first(hits: Sequence[ScoredHit], limit: int) -> list[ScoredHit]:
    """*hits* ordered by update time, newest first (then by descending id), cut to *limit*;
    records with an unknown update time last."""

    def key(hit: ScoredHit) -> tuple[bool, float, int]:
        updated = hit.record.updated_at
        stamp = updated_timestamp(updated) if updated is not None else 0
        return (updated is None, -stamp, -hit.record.id)  # unknown last, 1970 or not

    return sorted(hits, key=key)[:limit]


def by_update_time(request: SearchRequest, query: Query) -> bool:
    """Whether the answer is ordered by update time: ``sort: updated`` or no query terms."""
    return request.sort == "updated" or (not query.containment and not query.terms)


def index_answer(
    index: IndexBackend,
    request: SearchRequest,
    query: Query,
    thesaurus: Thesaurus,
) -> PathAnswer:
    """The index path with relaxation (blocking: Tantivy and the scorer; run in a thread)."""
    filters = index_filters(request)
    commit = index.commit_label()
    used = [query]
    wanted = SORT_WINDOW if request.sort == "updated" else request.limit

    def run(attempt: Query) -> HitList:
        hits = search_index(index, attempt, request.kind, filters, max(wanted, request.limit))
        if hits:
            used[0] = attempt
        return hits

    frequencies: dict[Alternative, int] = {}

    def doc_freq(alternative: Alternative) -> int:  # drop_term asks again for kept terms
        if alternative not in frequencies:
            frequencies[alternative] = index.term_frequency(request.kind, alternative)
        return frequencies[alternative]

    hits, outcome = search_with_relaxation(
        query, run, doc_freq=doc_freq, thesaurus=thesaurus, enabled=request.fallback
    )
    assert isinstance(hits, HitList)
    ordered = by_update_time(request, used[0])
    window = len(hits)
    while (
        not ordered
        and not used[0].containment
        and window < TIE_WINDOW
        and tie_straddles([hit.ranked.score for hit in hits], request.limit - 1, hits.total)
    ):  # a tie cut at the end of the page: rank all of it (see opindex.service.rarity)
        window = min(TIE_WINDOW, window * 4)
        hits = search_index(index, used[0], request.kind, filters, window)
    shown = newest_first(hits, request.limit) if ordered else hits
    vocabulary = index.vocabulary()
    return PathAnswer(
        "index",
        shown,
        used[0],
        outcome,
        hits.total,
        notes=hits.notes,
        frequency=lambda word: doc_freq(Alternative(word)),
        held=lambda word: vocabulary.find(word, "whole", limit=8) != [],
        commit=commit,
    )


async def live_answer(runtime: Tenant, request: SearchRequest, query: Query) -> PathAnswer:
    """The live two-phase path with relaxation over one session (nothing fetched twice)."""
    # Ordered by update time: rank (or list) as many as one answer may hold, then sort.
    ordered = by_update_time(request, query)
    wide = request.model_copy(update={"limit": max(MAX_LIMIT, request.limit)}) if ordered else None
    session = runtime.live().session(wide or request)
    runs: list[LiveOutcome] = []
    used = [query]

    async def run(attempt: Query) -> list[LiveHit]:
        outcome = await session.run(attempt)
        runs.append(outcome)
        if outcome.hits:
            used[0] = attempt
        return outcome.hits

    live_hits, outcome = await search_with_relaxation_async(
        query,
        run,
        doc_freq=session.doc_freq,
        thesaurus=runtime.thesaurus,
        enabled=request.fallback,
    )
    hits = [ScoredHit(hit.record, hit.ranked) for hit in live_hits]
    if by_update_time(request, used[0]):
        hits = newest_first(hits, request.limit)
    notes = list(dict.fromkeys(note for attempt in runs for note in attempt.notes))
    return PathAnswer(
        "live",
        hits,
        used[0],
        outcome,
        total=len(hits),
        degraded=any(attempt.degraded for attempt in runs),
        enrichment_failures=max((attempt.enrichment_failures for attempt in runs), default=0),
        notes=notes,
        frequency=lambda word: session.doc_freq(Alternative(word)),
    )


def envelope(
    tenant: str,
    request: SearchRequest,
    answer: PathAnswer,
    freshness: Freshness,
    *,
    base_url: str | None,
    notes: Sequence[str] = (),
    page: Paging | None = None,
    referenced: Record | None = None,
) -> SearchResponse:
    """The response envelope (ARCHITECTURE invariant 4: honest meta): the page *page*
    asks for (the first without), each hit's matched words, the words nothing matched,
    and the record the query named (*referenced*) first."""
    page = page or paging(request)
    builder = ResultBuilder(answer.query, base_url=base_url)
    original = parse_query(request.query, request.match_mode)
    words = query_words(original, answer.query)
    hits = list(answer.hits)
    if not by_update_time(request, answer.query) and not answer.query.containment:
        hits = rarity_order(hits, words, lambda h: h.ranked.score, lambda h: h.ranked.record)
    total = answer.total
    if referenced is not None:
        ranked_ref = Ranked(referenced.document, 1.0, ())
        same = [h for h in hits if h.record.id == referenced.id]
        hits = [ScoredHit(referenced, same[0].ranked if same else ranked_ref)] + [
            h for h in hits if h.record.id != referenced.id
        ]
        total += 0 if same else 1
    cut = cut_page([(request.kind, h.record.id) for h in hits], total, page, answer.commit)
    shown = hits[cut.start : cut.stop]
    results = builder.build(shown)
    dropped = [w.word for w in words if not w.alternatives]
    accounting = account(
        results,
        [hit.ranked.record for hit in shown],
        words,
        singular=KIND_LABELS[request.kind][0],
        dropped=dropped if answer.outcome.fallback_used else (),
        held=answer.held,
        frequency=answer.frequency,
    )
    if referenced is not None and cut.start == 0 and results:
        results[0].matched_words = [
            WordMatch(word=request.query.strip(), how="id", token=f"#{referenced.id}")
        ]
        results[0].score = max(results[0].score, 1.0)
    narrowed = describe_filters(request) if not hits else ""
    if narrowed:
        notes = [*notes, f"nothing matched within the filters: {narrowed}"]
    if referenced is not None:
        label = KIND_LABELS[request.kind][0]
        notes = [*notes, f"{request.query.strip()!r} names {label} #{referenced.id}: listed first"]
    meta = SearchMeta(
        tenant=tenant,
        kind=request.kind,
        source=answer.source,
        index_state=freshness.state,
        indexed_at=freshness.indexed_at,
        age_seconds=freshness.age_seconds,
        degraded=answer.degraded,
        enrichment_failures=answer.enrichment_failures,
        wildcard_fallback=answer.outcome.fallback_used,  # the seed rule: any strategy
        fallback_strategy=answer.outcome.strategy_used,
        original_query=request.query,
        effective_query=answer.outcome.effective_query,
        match_mode=request.match_mode,
        sort=request.sort,
        total=total,
        notes=[*notes, *answer.notes],
        unmatched_words=[] if referenced is not None else accounting.unmatched,
        notice=None if referenced is not None else accounting.notice,
        next_cursor=cut.next_cursor,
    )
    return SearchResponse(results=results, meta=meta)


def describe_filters(request: SearchRequest) -> str:
    """``project 999, status open`` for the filters of *request* ("" for none)."""
    parts = [
        f"{label} {value}"
        for label, value in (
            ("project", request.project_id),
            ("type", request.type_id),
            ("assignee", request.assignee_id),
            ("author", request.author_id),
        )
        if value is not None
    ]
    if request.status != "all":
        status = request.status
        parts.append(
            f"status {', '.join(map(str, status)) if isinstance(status, list) else status}"
        )
    if request.updated_after is not None:
        parts.append(f"updated at or after {request.updated_after.isoformat()}")
    if request.updated_before is not None:
        parts.append(f"updated before {request.updated_before.isoformat()}")
    return ", ".join(parts)


def _reason(error: BaseException) -> str:
    status = getattr(error, "status", None)
    return f"HTTP {status}" if status else type(error).__name__


async def search_tenant(runtime: Tenant, request: SearchRequest) -> SearchResponse:
    """Answer *request* for one tenant by the freshness policy (see ``choose_route``).

    - index path: candidates from Tantivy, re-ranked on stored content, no API call;
    - live path: OpenProject list + bounded enrichment;
    - ``auto`` and a stale index: if the live path fails because OpenProject is
      unreachable (network, timeout, 5xx), the stale index answers, labelled stale;
    - ``auto`` and an index (or index state) that cannot be read: the live path answers,
      with a note saying what could not be read.

    A fuzzy query without letters or digits is answered empty with a hint; a query that
    is an id or a link lists the record it names first (``opindex.service.references``);
    ``request.cursor`` asks for a later page (``opindex.service.answer_page``).
    """
    check_filters(request)
    page = paging(request)
    wide = widened(request, page)
    query = parse_query(request.query, request.match_mode)
    base_url = runtime.config.base_url
    freshness = runtime.freshness() if runtime.may_use_index else Freshness("missing")
    if no_words(request):
        return unsearchable(runtime.name, request, freshness)
    reference = parse_reference(request.query) if request.match_mode == "fuzzy" else None
    referenced = await _referenced(runtime, request, reference, freshness)
    route = choose_route(request.source, freshness)
    notes: list[str] = []

    async def answered(answer: PathAnswer, noted: Sequence[str]) -> SearchResponse:
        return await asyncio.to_thread(
            envelope,
            runtime.name,
            request,
            answer,
            freshness,
            base_url=base_url,
            notes=noted,
            page=page,
            referenced=referenced,
        )

    if route.path == "index":
        try:
            answer = await _index_answer(runtime, wide, query)
            noted = [] if freshness.problem is None else [f"{freshness.problem}; answered from it"]
            return await answered(answer, noted)
        except IndexUnavailableError as exc:
            runtime.note_damage(exc)
            if request.source != "auto":
                raise
            logger.warning("tenant %s: index unreadable, answering live: %s", runtime.name, exc)
            freshness = runtime.freshness()
            if freshness.state != "damaged":  # else its problem says so, below
                notes.append(f"{public_detail(exc)}; answered live")
    try:
        answer = await live_answer(runtime, wide, query)
    except OpenProjectError as exc:
        if not (route.stale_fallback and is_upstream_unavailable(exc)):
            raise
        try:
            answer = await _index_answer(runtime, wide, query)
        except IndexUnavailableError:
            raise exc from None
        notes.append(
            f"OpenProject could not be reached ({_reason(exc)}); answered from the stale index"
        )
    if freshness.problem is not None:
        where = "answered live" if answer.source == "live" else "answered from the index"
        notes.insert(0, f"{freshness.problem}; {where}")
    return await answered(answer, notes)


async def _referenced(
    runtime: Tenant, request: SearchRequest, reference: Reference | None, freshness: Freshness
) -> Record | None:
    """The record the query names, when it is of the kind searched and visible (a wiki
    page named by its slug: the page of that slug among the answers to the slug's words)."""
    if reference is not None and reference.slug is not None and request.kind == "wiki_page":
        words = request.model_copy(update={"query": reference.words(), "cursor": None})
        found = await search_tenant(runtime, words)
        suffix = f"/wiki/{reference.slug}"
        for result in found.results:
            if result.url is not None and result.url.rstrip("/").endswith(suffix):
                return await referenced_record(runtime, "wiki_page", result.id, freshness)
        return None
    if reference is None or reference.id is None:
        return None
    if reference.kind is not None and reference.kind != request.kind:
        return None
    return await referenced_record(runtime, request.kind, reference.id, freshness)


async def _index_answer(runtime: Tenant, request: SearchRequest, query: Query) -> PathAnswer:
    index = runtime.index()
    return await asyncio.to_thread(
        index_answer,
        index,
        request,
        query,
        runtime.thesaurus,
    )
