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
from collections.abc import Awaitable, Callable, Sequence
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
    meta = GlobalSearchMeta(
        tenant=tenant,
        original_query=request.query,
        match_mode=request.match_mode,
        total=sum(response.meta.total for response in responses.values()),
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
    )
    return GlobalSearchResponse(results=results[: request.limit], meta=meta)


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
    """One order over every kind: by score (then kind, then id), or newest first."""
    order = {kind: position for position, kind in enumerate(KINDS)}
    if request.sort == "updated":
        return sorted(
            results,
            key=lambda r: (-(r.updated_at or _EARLIEST).timestamp(), order[r.kind], r.id),
        )
    return sorted(results, key=lambda r: (-r.score, order[r.kind], r.id))
