"""Helpers for live-path tests against the sandbox: clients, in-flight counting, requests."""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
from tests.support.sandbox import ADMIN_KEY, SandboxHandle

from opindex.envelope import SearchRequest
from opindex.live import LiveSearcher
from opindex.openproject import OpenProjectClient, RetryPolicy

FAST_RETRY = RetryPolicy(max_attempts=3, base_delay=0.0, max_delay=0.0, jitter=0.0)


class InFlightTransport(httpx.AsyncBaseTransport):
    """Real HTTP, counting requests open at once (peak) and by path."""

    def __init__(self) -> None:
        self._inner = httpx.AsyncHTTPTransport()
        self.in_flight = 0
        self.peak = 0
        self.paths: list[str] = []
        self.urls: list[httpx.URL] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.in_flight += 1
        self.peak = max(self.peak, self.in_flight)
        self.paths.append(request.url.path)
        self.urls.append(request.url)
        try:
            response = await self._inner.handle_async_request(request)
            await response.aread()
            await asyncio.sleep(0)  # let other requests start while this one is open
            return response
        finally:
            self.in_flight -= 1

    async def aclose(self) -> None:
        await self._inner.aclose()


@asynccontextmanager
async def live_searcher(
    handle: SandboxHandle, api_key: str = ADMIN_KEY, **options: Any
) -> AsyncIterator[tuple[LiveSearcher, InFlightTransport]]:
    """A LiveSearcher over a real client of the sandbox, and its counting transport."""
    transport = InFlightTransport()
    client = OpenProjectClient(handle.base_url, api_key, transport=transport, retry=FAST_RETRY)
    try:
        yield LiveSearcher(client, **options), transport
    finally:
        await client.aclose()


def request(kind: str, query: str = "", **fields: Any) -> SearchRequest:
    """A SearchRequest with a generous limit."""
    fields.setdefault("limit", 100)
    return SearchRequest(kind=kind, query=query, **fields)  # type: ignore[arg-type]


def count_paths(stats: dict[str, Any], pattern: str) -> int:
    """Requests whose literal path fully matches the regular expression *pattern*."""
    compiled = re.compile(pattern)
    by_path: dict[str, int] = stats["by_path"]
    return sum(count for path, count in by_path.items() if compiled.fullmatch(path))


def distinct_paths(stats: dict[str, Any], pattern: str) -> set[str]:
    compiled = re.compile(pattern)
    return {path for path in stats["by_path"] if compiled.fullmatch(path)}


WP_DETAIL = r"/api/v3/work_packages/\d+"
WP_ACTIVITIES = r"/api/v3/work_packages/\d+/activities"
WP_LIST = r"/api/v3/work_packages"
MEETING_DETAIL = r"/api/v3/meetings/\d+"
AGENDA_ITEMS = r"/api/v3/meetings/\d+/agenda_items"
WIKI_PAGE = r"/api/v3/wiki_pages/\d+"
WIKI_LIST = r"/api/v3/wiki_pages"
