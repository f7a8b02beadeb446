"""The three ways a benchmark query is answered: index path, live path, substring baseline.

The index and live paths go through the service façade exactly as the MCP tools do
(``source="index"`` / ``source="live"``); the live path reads a sandbox over HTTP, whose
request counter gives the API cost of each search.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from evallib.baseline import SubstringBaseline
from evallib.querygen import KnownItemQuery
from opindex.config import Config, Secret, TenantConfig
from opindex.envelope import SearchRequest, SearchResponse, Source
from opindex.errors import OpindexError
from opindex.sandbox.corpus_gen import ADMIN_KEY
from opindex.service import Service

RECALL_LIMIT = 10


@dataclass(frozen=True, slots=True)
class Answer:
    """One path's answer to one query: ranked ids (with scores and titles) and its cost."""

    ids: tuple[int, ...]
    scores: tuple[float, ...] = ()
    titles: tuple[str, ...] = ()
    relaxed: bool = False
    strategy: str | None = None
    effective_query: str | None = None
    seconds: float = 0.0
    requests: int | None = None
    degraded: bool = False
    error: str | None = None
    notes: tuple[str, ...] = field(default_factory=tuple)


def answer_from(response: SearchResponse, seconds: float, requests: int | None) -> Answer:
    """An Answer from a search envelope."""
    meta = response.meta
    return Answer(
        ids=tuple(r.id for r in response.results),
        scores=tuple(r.score for r in response.results),
        titles=tuple(r.title for r in response.results),
        relaxed=meta.fallback_strategy is not None,
        strategy=meta.fallback_strategy,
        effective_query=meta.effective_query,
        seconds=seconds,
        requests=requests,
        degraded=meta.degraded,
        notes=tuple(meta.notes),
    )


def bench_config(data_dir: Path, tenant: str, base_url: str) -> Config:
    """One tenant built as the sandbox's admin, reading *data_dir*, live path at *base_url*."""
    return Config(
        data_dir=data_dir,
        tenants=(TenantConfig(name=tenant, base_url=base_url, api_key=Secret(ADMIN_KEY)),),
    )


class ServicePaths:
    """Index and live searches of one tenant through the service, with their API cost.

    *request_counter* returns the sandbox's API request count (read before and after each
    search); None skips counting.
    """

    def __init__(
        self, config: Config, tenant: str, request_counter: Callable[[], int] | None = None
    ) -> None:
        self.service = Service.from_config(config)
        self.tenant = tenant
        self.request_counter = request_counter

    async def search(
        self,
        query: KnownItemQuery,
        source: Source,
        *,
        limit: int = RECALL_LIMIT,
        fallback: bool = True,
    ) -> Answer:
        """Answer *query* on one path; a library error becomes an Answer with ``error``."""
        request = SearchRequest(
            kind=query.kind, query=query.query, limit=limit, source=source, fallback=fallback
        )
        before = self.request_counter() if self.request_counter is not None else None
        started = time.perf_counter()
        try:
            response = await self.service.search(request, tenant=self.tenant)
        except OpindexError as error:
            seconds = time.perf_counter() - started
            return Answer(ids=(), seconds=seconds, error=f"{type(error).__name__}: {error}")
        seconds = time.perf_counter() - started
        requests = None
        if before is not None and self.request_counter is not None:
            requests = self.request_counter() - before
        return answer_from(response, seconds, requests)

    async def aclose(self) -> None:
        await self.service.aclose()


def substring_answer(baseline: SubstringBaseline, query: KnownItemQuery) -> Answer:
    """The exact-substring baseline's answer (in process, no API call counted)."""
    started = time.perf_counter()
    ids = baseline.search(query.kind, query.query, RECALL_LIMIT)
    return Answer(ids=tuple(ids), seconds=time.perf_counter() - started, requests=1)
