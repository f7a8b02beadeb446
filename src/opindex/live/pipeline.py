"""The two-phase live search (spec §2.5): rank list data, enrich a bounded set, re-rank."""

from __future__ import annotations

import asyncio
import math
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from opindex.errors import (
    AuthenticationError,
    InvalidArgumentError,
    OpenProjectError,
    PermissionDeniedError,
    RateLimitedError,
)
from opindex.records import Record
from opindex.search import (
    DEFAULT_MIN_SCORE,
    SHALLOW_FIELDS,
    AnalyzedDocument,
    Kind,
    Query,
    Ranked,
    SearchDocument,
    analyze_document,
    rank_documents,
)

DEFAULT_ENRICH_LIMIT = 25
"""Records whose deep content one run may read (spec §2.5)."""
DEFAULT_CONCURRENCY = 8
"""Enrichments in flight at once (spec §2.5)."""

FATAL_ERRORS: tuple[type[OpenProjectError], ...] = (
    AuthenticationError,
    PermissionDeniedError,
    RateLimitedError,
)
"""401/403/429 abort the whole search (spec §5); any other OpenProjectError degrades the
one record it hit."""

Enrich = Callable[[Record], Awaitable[Record]]
"""Reads the deep content of a shallow record and returns the full record. It must issue
its requests one after another: the pipeline bounds enrichments in flight, so the bound on
requests in flight holds only if each enrichment has at most one request open at a time."""
Recency = Callable[[Record], float | None]
"""How recent a candidate is (larger = more recent), for the backfill; None = unknown."""

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class EnrichmentBudget:
    """How much one run may read: records enriched, and enrichments in flight at once."""

    enrich_limit: int = DEFAULT_ENRICH_LIMIT
    concurrency: int = DEFAULT_CONCURRENCY

    def __post_init__(self) -> None:
        for name, value in (("enrich_limit", self.enrich_limit), ("concurrency", self.concurrency)):
            if isinstance(value, bool) or not isinstance(value, int):
                raise InvalidArgumentError(f"{name} must be an integer, not {value!r}")
        if self.enrich_limit < 0:
            raise InvalidArgumentError(f"enrich_limit must be >= 0, not {self.enrich_limit}")
        if self.concurrency < 1:
            raise InvalidArgumentError(f"concurrency must be at least 1, not {self.concurrency}")


@dataclass(slots=True)
class EnrichmentMemo:
    """What a session has read so far, so a re-run (relaxed query) re-fetches nothing.

    ``enriched`` maps a record id to its full record; ``failed`` holds ids whose enrichment
    failed (not retried within the session, still reported as failures when selected);
    ``analyzed`` caches tokenized documents across runs.
    """

    enriched: dict[int, Record] = field(default_factory=dict)
    failed: dict[int, str] = field(default_factory=dict)
    analyzed: dict[int, AnalyzedDocument] = field(default_factory=dict)

    def current(self, candidate: Record) -> Record:
        """The best version of *candidate* read so far (enriched if it was)."""
        return self.enriched.get(candidate.id, candidate)

    def analyzed_document(self, record: Record) -> AnalyzedDocument:
        """The tokenized document of *record*, computed once per document object.

        Keyed by object identity; the cached AnalyzedDocument keeps its document alive,
        so an identity is never reused while its entry exists.
        """
        key = id(record.document)
        found = self.analyzed.get(key)
        if found is None or found.document is not record.document:
            found = analyze_document(record.document)
            self.analyzed[key] = found
        return found


@dataclass(frozen=True, slots=True)
class PipelineResult:
    """One run: ranked hits with their records, and what enrichment could not read."""

    hits: list[tuple[Record, Ranked[SearchDocument]]]
    degraded: bool
    enrichment_failures: int
    enrichment_calls: int
    selected: tuple[int, ...]
    failure_reasons: tuple[str, ...] = ()


def shallow_record(record: Record) -> Record:
    """*record* with only the fields a list response provides (spec §3: shallow fields).

    A list element may carry more than the spec's shallow fields (a work package list
    element includes its description); phase 1 must not see them, so deep field names are
    dropped from the document and come back only through enrichment.
    """
    document = record.document
    allowed = SHALLOW_FIELDS[document.kind]
    if all(name in allowed for name in document.fields):
        return record
    fields = {name: values for name, values in document.fields.items() if name in allowed}
    trimmed = SearchDocument(kind=document.kind, id=document.id, fields=fields)
    return Record(
        document=trimmed,
        title=record.title,
        project_id=record.project_id,
        project_name=record.project_name,
        updated_at=record.updated_at,
        attributes=record.attributes,
    )


def recency_order(candidates: Sequence[Record], recency: Recency | None) -> list[Record]:
    """Most recent first; unknown recency last; ties (and no recency) keep API order."""
    if recency is None:
        return list(candidates)

    def key(item: tuple[int, Record]) -> tuple[float, int]:
        value = recency(item[1])
        return (-value if value is not None else math.inf, item[0])

    return [record for _, record in sorted(enumerate(candidates), key=key)]


def select_for_enrichment(
    shallow_hits: Sequence[Record],
    candidates: Sequence[Record],
    recency: Recency | None,
    limit: int,
) -> list[Record]:
    """The top *limit* shallow hits, backfilled with the most recent other candidates."""
    chosen = list(shallow_hits[:limit])
    if len(chosen) < limit:
        taken = {record.id for record in chosen}
        for record in recency_order(candidates, recency):
            if len(chosen) >= limit:
                break
            if record.id not in taken:
                chosen.append(record)
                taken.add(record.id)
    return chosen


async def close_walk(walk: AsyncIterator[object]) -> None:
    """Close an async generator left early (a capped collection walk)."""
    close = getattr(walk, "aclose", None)
    if close is not None:
        await close()


async def gather_bounded(jobs: Iterable[Callable[[], Awaitable[T]]], concurrency: int) -> list[T]:
    """Run *jobs* with at most *concurrency* in flight; results in job order.

    The first exception cancels every job still pending or running and is re-raised, so a
    fatal error (401/403/429) stops the fan-out at once.
    """
    semaphore = asyncio.Semaphore(concurrency)

    async def guarded(job: Callable[[], Awaitable[T]]) -> T:
        async with semaphore:
            return await job()

    tasks = [asyncio.ensure_future(guarded(job)) for job in jobs]
    try:
        return list(await asyncio.gather(*tasks))
    except BaseException:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise


async def _enrich_selected(
    selected: Sequence[Record], enrich: Enrich, budget: EnrichmentBudget, memo: EnrichmentMemo
) -> tuple[int, list[str]]:
    """Enrich the selected records not read before; returns (calls made, failure reasons)."""
    pending = [r for r in selected if r.id not in memo.enriched and r.id not in memo.failed]

    def job(record: Record) -> Callable[[], Awaitable[None]]:
        async def run() -> None:
            try:
                memo.enriched[record.id] = await enrich(record)
            except FATAL_ERRORS:
                raise
            except OpenProjectError as exc:
                memo.failed[record.id] = _reason(exc)

        return run

    await gather_bounded([job(record) for record in pending], budget.concurrency)
    reasons = [memo.failed[r.id] for r in selected if r.id in memo.failed]
    return len(pending), reasons


def _reason(exc: OpenProjectError) -> str:
    if exc.status is not None:
        return f"HTTP {exc.status}"
    return type(exc).__name__


async def two_phase_search(
    candidates: Sequence[Record],
    query: Query,
    *,
    kind: Kind,
    enrich: Enrich | None,
    recency: Recency | None,
    memo: EnrichmentMemo,
    budget: EnrichmentBudget | None = None,
    min_score: float = DEFAULT_MIN_SCORE,
    limit: int | None = None,
) -> PipelineResult:
    """Rank *candidates* (shallow records, in API order) for *query*.

    Phase 1 ranks the shallow documents (no request). Phase 2 enriches the top
    ``enrich_limit`` shallow hits, backfilled by recency, at most ``concurrency`` at once,
    skipping records the memo already read or failed on. The final ranking scores every
    candidate's best known document with the shared scorer, so a record's score is
    max(shallow, deep) and an unenriched one is scored on its shallow fields only. An
    empty query returns the candidates unranked (API order, score 0) without enrichment.
    """
    budget = budget or EnrichmentBudget()
    by_id = {record.id: record for record in candidates}
    if not query.containment and not query.terms:
        unranked = [
            (record, Ranked(record.document, 0.0, ())) for record in list(candidates)[:limit]
        ]
        return PipelineResult(unranked, False, 0, 0, ())

    calls, reasons = 0, list[str]()
    selected: list[Record] = []
    if enrich is not None and budget.enrich_limit > 0:
        shallow = rank_documents(
            [memo.analyzed_document(shallow_record(r)) for r in candidates],
            query,
            kind,
            min_score=min_score,
        )
        shallow_hits = [by_id[item.record.id] for item in shallow]
        selected = select_for_enrichment(shallow_hits, candidates, recency, budget.enrich_limit)
        calls, reasons = await _enrich_selected(selected, enrich, budget, memo)

    current = [memo.current(record) for record in candidates]
    ranked = rank_documents(
        [memo.analyzed_document(record) for record in current],
        query,
        kind,
        min_score=min_score,
        limit=limit,
    )
    records = {record.id: record for record in current}
    hits = [(records[item.record.id], item) for item in ranked]
    return PipelineResult(
        hits=hits,
        degraded=bool(reasons),
        enrichment_failures=len(reasons),
        enrichment_calls=calls,
        selected=tuple(record.id for record in selected),
        failure_reasons=tuple(reasons),
    )
