"""One search over several kinds: each kind searched as usual, the results merged into one ranking.

Every kind is scored by the same scorer with its fields weighted on one scale (each kind's
title-like field weighs 3.0, the maximum), so scores compare across kinds and one merge by
score ranks them. Relaxation runs only when no kind found anything, so strict hits of one
kind never mix with relaxed hits of another. A kind that cannot be searched (a filter that
does not apply to it, attached files on the live path, an unreachable server) is listed
with the reason instead of failing the whole search.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable, Sequence
from datetime import UTC, datetime

from opindex.envelope import (
    GlobalSearchMeta,
    GlobalSearchResponse,
    KindAnswer,
    KindNotSearched,
    SearchRequest,
    SearchResponse,
    SearchResult,
)
from opindex.errors import InvalidArgumentError, OpenProjectError, OpindexError
from opindex.search import KINDS, Kind
from opindex.service.answer_page import cut_page, paging, widened

SearchOne = Callable[[SearchRequest], Awaitable[SearchResponse]]

_EARLIEST = datetime.min.replace(tzinfo=UTC)


async def search_kinds(
    search_one: SearchOne, request: SearchRequest, kinds: Sequence[Kind], tenant: str
) -> GlobalSearchResponse:
    """*request* (its ``kind`` is ignored) over *kinds*, merged; see the module docstring.

    Raises the first kind's error when no kind could be searched at all.
    """
    chosen = [kind for kind in KINDS if kind in set(kinds)]
    if not chosen:
        raise InvalidArgumentError(f"kinds must name at least one of: {', '.join(KINDS)}")
    page = paging(request.model_copy(update={"kind": "work_package"}), ",".join(chosen))
    original = request
    request = widened(request, page)
    answers = await _run(search_one, request, chosen, fallback=False)
    found = sum(len(a.results) for a in answers.values() if isinstance(a, SearchResponse))
    if found == 0 and request.fallback:
        answers = await _run(search_one, request, chosen, fallback=True)
    responses = {k: a for k, a in answers.items() if isinstance(a, SearchResponse)}
    failures = {k: a for k, a in answers.items() if isinstance(a, OpindexError)}
    if not responses:
        raise next(iter(failures.values()))
    results = _merged([r for response in responses.values() for r in response.results], request)
    first = next(iter(responses.values())).meta  # every kind reads the same index
    commits = sorted({str(r.meta.source) + str(r.meta.indexed_at) for r in responses.values()})
    total = sum(response.meta.total for response in responses.values())
    cut = cut_page([(r.kind, r.id) for r in results], total, page, "|".join(commits))
    shown = results[cut.start : cut.stop]
    unmatched = _unmatched(original.query, responses.values(), shown)
    notices = [r.meta.notice for r in responses.values() if r.meta.notice]
    meta = GlobalSearchMeta(
        tenant=tenant,
        original_query=request.query,
        match_mode=request.match_mode,
        total=total,
        kinds=[
            KindAnswer(
                kind=kind,
                source=response.meta.source,
                index_state=response.meta.index_state,
                total=response.meta.total,
                fallback_strategy=response.meta.fallback_strategy,
                effective_query=response.meta.effective_query,
                notes=response.meta.notes,
            )
            for kind, response in responses.items()
        ],
        not_searched=[
            KindNotSearched(kind=kind, reason=str(error)) for kind, error in failures.items()
        ],
        indexed_at=first.indexed_at,
        age_seconds=first.age_seconds,
        sort=original.sort,
        unmatched_words=unmatched,
        notice=_notice(unmatched, notices, shown),
        next_cursor=cut.next_cursor,
    )
    return GlobalSearchResponse(results=shown, meta=meta)


def _unmatched(
    query: str, responses: Iterable[SearchResponse], shown: Sequence[SearchResult]
) -> list[str]:
    """The query words no shown result matched (in the order of the query)."""
    words: list[str] = []
    for response in responses:
        words.extend(w for w in response.meta.unmatched_words if w not in words)
        for result in response.results:
            words.extend(m.word for m in result.matched_words if m.word not in words)
    matched = {m.word for result in shown for m in result.matched_words}
    return [word for word in words if word not in matched]


def _notice(
    unmatched: Sequence[str], notices: Sequence[str], shown: Sequence[SearchResult]
) -> str | None:
    """The first line of the answer: a query with nothing to search, or the words no
    result matched."""
    if not shown:
        return notices[0] if notices and "no letters or digits" in notices[0] else None
    if not unmatched:
        return None
    named = ", ".join(repr(word) for word in unmatched)
    return f"Not every word matched: {named} matches none of these results."


async def _run(
    search_one: SearchOne, request: SearchRequest, kinds: Sequence[Kind], *, fallback: bool
) -> dict[Kind, SearchResponse | OpindexError]:
    async def one(kind: Kind) -> SearchResponse | OpindexError:
        try:
            return await search_one(request.model_copy(update={"kind": kind, "fallback": fallback}))
        except (InvalidArgumentError, OpenProjectError) as error:
            return error

    found = await asyncio.gather(*(one(kind) for kind in kinds))
    return dict(zip(kinds, found, strict=True))


def _merged(results: list[SearchResult], request: SearchRequest) -> list[SearchResult]:
    """One order over every kind: by score (then kind, then id), or newest first (then
    by descending id) with ``sort: updated`` or an empty query."""
    order = {kind: position for position, kind in enumerate(KINDS)}
    if request.sort == "updated" or not request.query.strip():
        return sorted(
            results,
            key=lambda r: (-(r.updated_at or _EARLIEST).timestamp(), -r.id, order[r.kind]),
        )
    return sorted(results, key=lambda r: (-r.score, order[r.kind], r.id))
