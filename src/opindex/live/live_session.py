"""The live path's API for the service: one searcher per tenant client, one session per
request, re-runnable with relaxed queries without fetching anything twice."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from datetime import UTC

from opindex.envelope import SearchRequest
from opindex.errors import InvalidArgumentError
from opindex.live.activities import ActivityListing, list_activities
from opindex.live.meetings import MeetingSource
from opindex.live.outcome import CandidateSet, LiveHit, LiveOutcome
from opindex.live.pipeline import (
    DEFAULT_CONCURRENCY,
    DEFAULT_ENRICH_LIMIT,
    EnrichmentBudget,
    EnrichmentMemo,
    two_phase_search,
)
from opindex.live.publications import ATTACHMENTS_NOT_LIVE, PublicationSource
from opindex.live.wikis import WikiDirectoryCache, WikiSource
from opindex.live.work_packages import WorkPackageSource
from opindex.openproject import OpenProjectClient, ServerCapabilities
from opindex.records import Record
from opindex.search import (
    DEFAULT_MIN_SCORE,
    KINDS,
    Alternative,
    Query,
    alternative_score,
    parse_query,
    validate_match_mode,
)


class LiveSearcher:
    """Live two-phase search over one tenant's OpenProject client.

    *wiki_cache* is the process-wide wiki directory cache; it needs *tenant_key*
    (``tenant_cache_key(base_url, credential)``) so tenants never share pages. Without a
    shared cache the searcher keeps a private one (keyed by its base URL). *capabilities*
    (from the state database), when known, spare the probes that would detect them.
    """

    def __init__(
        self,
        client: OpenProjectClient,
        *,
        enrich_limit: int = DEFAULT_ENRICH_LIMIT,
        concurrency: int = DEFAULT_CONCURRENCY,
        wiki_cache: WikiDirectoryCache | None = None,
        tenant_key: str | None = None,
        capabilities: ServerCapabilities | None = None,
        min_score: float = DEFAULT_MIN_SCORE,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if wiki_cache is not None and tenant_key is None:
            raise InvalidArgumentError("a shared wiki cache needs the tenant_key of the client")
        self.client = client
        self.budget = EnrichmentBudget(enrich_limit=enrich_limit, concurrency=concurrency)
        self.min_score = min_score
        self.capabilities = capabilities
        self.wiki_cache = wiki_cache or WikiDirectoryCache(clock=clock)
        self._work_packages = WorkPackageSource(client)
        self._meetings = MeetingSource(client, capabilities)
        self._publications = PublicationSource(client)
        self._wikis = WikiSource(
            client, self.wiki_cache, tenant_key or client.base_url, capabilities
        )

    def session(self, request: SearchRequest) -> LiveSession:
        """A session for *request*; invalid kind or match mode fail here, before any request."""
        if request.kind not in KINDS:
            raise InvalidArgumentError(f"unknown record kind {request.kind!r}")
        if request.kind == "attachment":
            raise InvalidArgumentError(ATTACHMENTS_NOT_LIVE)
        validate_match_mode(request.match_mode)
        return LiveSession(self, request)

    async def search(self, request: SearchRequest) -> LiveOutcome:
        """One run of the request's own query (no relaxation)."""
        return await self.session(request).run()

    async def list_activities(
        self,
        work_package_id: int,
        query: str | None = None,
        match_mode: str = "fuzzy",
        *,
        limit: int | None = None,
    ) -> ActivityListing:
        """The activities of a work package, ranked client-side when *query* is given."""
        return await list_activities(
            self.client, work_package_id, query, match_mode, limit=limit, min_score=self.min_score
        )

    async def _fetch(self, request: SearchRequest, query: Query) -> CandidateSet:
        if request.kind == "work_package":
            return await self._work_packages.candidates(request, query)
        if request.kind == "meeting":
            return await self._meetings.candidates(request)
        if request.kind == "wiki_page":
            return await self._wikis.candidates(request)
        return await self._publications.candidates(request)


_DEEP_CONTENT = {"work_package": "comments", "meeting": "agenda items and outcomes"}


def _unread_note(kind: str, query: Query, candidates: int, memo: EnrichmentMemo) -> str | None:
    """The caveat of a live search that read the deep content of only some candidates:
    a record matching only in content it did not read cannot be found."""
    deep = _DEEP_CONTENT.get(kind)
    if deep is None or (not query.containment and not query.terms):
        return None
    read = len(memo.enriched) + len(memo.failed)
    if read >= candidates:
        return None
    return (
        f"answered live: the {deep} of only {read} of {candidates} candidates were read, so a "
        f"record matching only in other {deep} is not found; the index (after `opindex "
        "sync`) searches all of them"
    )


def in_window(record: Record, request: SearchRequest) -> bool:
    """True when *record* was updated inside the request's update window (a record
    with an unknown update time is outside any window)."""
    after, before = request.updated_after, request.updated_before
    if after is None and before is None:
        return True
    updated = record.updated_at
    if updated is None:
        return False
    if updated.tzinfo is None:
        updated = updated.replace(tzinfo=UTC)
    return (after is None or updated >= after) and (before is None or updated < before)


class LiveSession:
    """One request's live search. ``run`` may be called again with a relaxed query: the
    candidates are fetched once and every record enriched once per session; each run still
    enriches at most ``enrich_limit`` records it has not read yet."""

    def __init__(self, searcher: LiveSearcher, request: SearchRequest) -> None:
        self._searcher = searcher
        self.request = request
        self.query = parse_query(request.query, request.match_mode)
        self._memo = EnrichmentMemo()
        self._candidates: CandidateSet | None = None
        self._lock = asyncio.Lock()
        self._frequencies: tuple[tuple[int, int], list[frozenset[str]]] | None = None

    async def candidates(self) -> CandidateSet:
        """The fetched candidates (fetched on first use, then reused)."""
        async with self._lock:
            if self._candidates is None:
                fetched = await self._searcher._fetch(self.request, self.query)
                fetched.records = [r for r in fetched.records if in_window(r, self.request)]
                self._candidates = fetched
            return self._candidates

    async def run(self, query: Query | None = None) -> LiveOutcome:
        """Rank the candidates for *query* (default: the request's own query)."""
        query = query if query is not None else self.query
        client = self._searcher.client
        start = client.request_count
        fetched = await self.candidates()
        result = await two_phase_search(
            fetched.records,
            query,
            kind=self.request.kind,
            enrich=fetched.enrich,
            recency=fetched.recency,
            memo=self._memo,
            budget=self._searcher.budget,
            min_score=self._searcher.min_score,
            limit=self.request.limit,
        )
        notes = list(fetched.notes)
        unread = _unread_note(self.request.kind, query, len(fetched.records), self._memo)
        if unread is not None:
            notes.append(unread)
        if result.enrichment_failures:
            reasons = ", ".join(sorted(set(result.failure_reasons)))
            notes.append(
                f"the full content of {result.enrichment_failures} record(s) could not be "
                f"read ({reasons}); they were ranked on their list fields only"
            )
        return LiveOutcome(
            hits=[LiveHit(record, ranked) for record, ranked in result.hits],
            degraded=result.degraded or fetched.failures > 0 or fetched.incomplete,
            enrichment_failures=result.enrichment_failures + fetched.failures,
            notes=notes,
            requests=client.request_count - start,
            enrichment_calls=result.enrichment_calls,
            candidates=len(fetched.records),
        )

    def doc_freq(self, alternative: Alternative) -> int:
        """How many fetched candidates hold a token *alternative* matches by the scorer's
        rules in any field read so far (for drop_term); 0 before the first run."""
        if self._candidates is None:
            return 0
        version = (len(self._candidates.records), len(self._memo.enriched))
        if self._frequencies is None or self._frequencies[0] != version:
            holdings: list[frozenset[str]] = []
            for candidate in self._candidates.records:
                analyzed = self._memo.analyzed_document(self._memo.current(candidate))
                distinct: set[str] = set()
                for values in analyzed.fields.values():
                    for value in values:
                        distinct |= value.distinct
                holdings.append(frozenset(distinct))
            self._frequencies = (version, holdings)
        holdings = self._frequencies[1]
        vocabulary = frozenset().union(*holdings)
        matching = {t for t in vocabulary if alternative_score(alternative, t) > 0.0}
        return sum(1 for distinct in holdings if not distinct.isdisjoint(matching))
