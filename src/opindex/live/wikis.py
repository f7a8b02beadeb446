"""Live wiki search: discover a tenant's pages (list endpoint or id probing), cached per tenant.

Released OpenProject servers have no wiki page list (only ``GET /api/v3/wiki_pages/{id}``),
so pages are found by probing ids. The legacy probe (ids 1..50, stop after 5 misses) missed
every page past id 50 or past a gap of five deleted ids (spec §6.2). Here probing walks ids
upwards in batches and stops only after ``miss_run_limit`` consecutive misses past the
highest page found, so pages across gaps of up to that many missing ids are found.

Cost bound: one search sends at most ``probe_budget`` probe requests (at most
``concurrency`` at once). A walk that needs more continues where it stopped on the next
search (the directory remembers the next id to probe). A full walk costs about
``highest page id + miss_run_limit`` requests, once per ``ttl_seconds`` per tenant; with
the list endpoint it costs the list pages instead. The directory is keyed by tenant
(base URL + a hash of the credential, never the key itself) and expires after the TTL.
"""

from __future__ import annotations

import asyncio
import hashlib
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from opindex.envelope import SearchRequest
from opindex.errors import InvalidArgumentError, NotFoundError, OpenProjectError
from opindex.live.outcome import CandidateSet
from opindex.live.pipeline import FATAL_ERRORS, gather_bounded
from opindex.openproject import (
    ApiKeyCredential,
    OpenProjectClient,
    ServerCapabilities,
    normalize_base_url,
)
from opindex.record_builders import wiki_page_record
from opindex.records import Record

_ABSENT_STATUSES = frozenset({404, 405})
NO_TEXT_NOTE = "this OpenProject server does not expose wiki page text: only titles were searched"


def tenant_cache_key(base_url: str, credential: str | ApiKeyCredential) -> str:
    """The cache key of a tenant: its base URL and a SHA-256 of its Authorization header.

    The key itself never appears in the result, so the cache can be inspected or logged.
    """
    if isinstance(credential, str):
        credential = ApiKeyCredential(credential)
    digest = hashlib.sha256(credential.authorization_header().encode("utf-8")).hexdigest()
    return f"{normalize_base_url(base_url)}#{digest}"


@dataclass(frozen=True, slots=True)
class WikiDiscoverySettings:
    """Bounds of wiki discovery (see the module docstring for the cost they imply)."""

    ttl_seconds: float = 300.0
    miss_run_limit: int = 100
    probe_budget: int = 500
    batch_size: int = 16
    concurrency: int = 8

    def __post_init__(self) -> None:
        if not self.ttl_seconds > 0:
            raise InvalidArgumentError("wiki ttl_seconds must be positive")
        for name in ("miss_run_limit", "probe_budget", "batch_size", "concurrency"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise InvalidArgumentError(f"wiki {name} must be a positive integer")


@dataclass(slots=True)
class WikiDirectory:
    """The wiki pages of one tenant found so far in the current TTL period."""

    started_at: float
    pages: dict[int, Record] = field(default_factory=dict)
    listed: bool | None = None
    """True: the list endpoint served the pages; False: it is absent; None: not tried."""
    next_id: int = 1
    anchor: int = 0
    """Highest id that answered with a page (or failed): misses are counted after it."""
    failed: set[int] = field(default_factory=set)
    complete: bool = False
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    @property
    def miss_run(self) -> int:
        """Consecutive ids probed without a page since the last page (or failure)."""
        return self.next_id - 1 - self.anchor


class WikiDirectoryCache:
    """Wiki directories per tenant key, each expiring ``ttl_seconds`` after it started.

    Share one instance across the searchers of a process; keys are ``tenant_cache_key``
    values, so two credentials on one base URL never see each other's pages.
    """

    def __init__(
        self,
        settings: WikiDiscoverySettings | None = None,
        *,
        clock: Callable[[], float] = time.monotonic,
        max_tenants: int = 1024,
    ) -> None:
        self.settings = settings or WikiDiscoverySettings()
        self._clock = clock
        self._max_tenants = max_tenants
        self._directories: OrderedDict[str, WikiDirectory] = OrderedDict()

    def directory(self, tenant_key: str) -> WikiDirectory:
        """The tenant's directory, a fresh one when absent or expired."""
        now = self._clock()
        found = self._directories.get(tenant_key)
        if found is None or now - found.started_at >= self.settings.ttl_seconds:
            found = WikiDirectory(started_at=now)
            self._directories[tenant_key] = found
        self._directories.move_to_end(tenant_key)
        while len(self._directories) > self._max_tenants:
            self._directories.popitem(last=False)
        return found

    def tenant_keys(self) -> list[str]:
        """Keys with a directory (for tests and diagnostics)."""
        return list(self._directories)


_MISS = "miss"
_FAILED = "failed"


@dataclass(frozen=True, slots=True)
class DiscoveryReport:
    """What one discovery call did and how complete the directory now is."""

    pages: list[Record]
    complete: bool
    via_list: bool
    probes: int
    unread_ids: int
    next_id: int


async def _probe(client: OpenProjectClient, page_id: int) -> Record | str:
    try:
        return wiki_page_record(await client.wiki_page(page_id))
    except NotFoundError:
        return _MISS
    except FATAL_ERRORS:
        raise
    except OpenProjectError:
        return _FAILED


async def _try_list(client: OpenProjectClient, directory: WikiDirectory) -> None:
    try:
        pages = await client.wiki_pages().collect()
    except OpenProjectError as exc:
        if exc.status in _ABSENT_STATUSES:
            directory.listed = False
            return
        raise
    directory.pages = {page.id: wiki_page_record(page) for page in pages}
    directory.listed = True
    directory.complete = True


async def _probe_ids(
    client: OpenProjectClient, directory: WikiDirectory, ids: list[int], concurrency: int
) -> None:
    def job(page_id: int) -> Callable[[], Awaitable[Record | str]]:
        return lambda: _probe(client, page_id)

    results = await gather_bounded([job(page_id) for page_id in ids], concurrency)
    for page_id, result in zip(ids, results, strict=True):
        if isinstance(result, Record):
            directory.pages[page_id] = result
            directory.failed.discard(page_id)
            directory.anchor = max(directory.anchor, page_id)
        elif result == _FAILED:
            directory.failed.add(page_id)
            directory.anchor = max(directory.anchor, page_id)
        else:
            directory.failed.discard(page_id)
            directory.pages.pop(page_id, None)


async def discover(
    client: OpenProjectClient,
    directory: WikiDirectory,
    settings: WikiDiscoverySettings,
    capabilities: ServerCapabilities | None = None,
) -> DiscoveryReport:
    """Extend *directory* within this call's probe budget and report on it."""
    probes = 0
    async with directory.lock:
        if directory.listed is None:
            if capabilities is not None and not capabilities.wiki_list:
                directory.listed = False
            else:
                await _try_list(client, directory)
        if not directory.listed:
            budget = settings.probe_budget
            retry = sorted(directory.failed)[:budget]
            if retry:
                await _probe_ids(client, directory, retry, settings.concurrency)
                probes += len(retry)
                budget -= len(retry)
            while not directory.complete and budget > 0:
                size = min(settings.batch_size, budget)
                ids = list(range(directory.next_id, directory.next_id + size))
                await _probe_ids(client, directory, ids, settings.concurrency)
                directory.next_id += size
                probes += size
                budget -= size
                if directory.miss_run >= settings.miss_run_limit:
                    directory.complete = True
        return DiscoveryReport(
            pages=[directory.pages[key] for key in sorted(directory.pages)],
            complete=directory.complete,
            via_list=bool(directory.listed),
            probes=probes,
            unread_ids=len(directory.failed),
            next_id=directory.next_id,
        )


class WikiSource:
    """Wiki candidates for one request: every discovered page of the tenant (optionally
    of one project), complete (title and text), so no enrichment phase exists."""

    def __init__(
        self,
        client: OpenProjectClient,
        cache: WikiDirectoryCache,
        tenant_key: str,
        capabilities: ServerCapabilities | None = None,
    ) -> None:
        self._client = client
        self._cache = cache
        self._tenant_key = tenant_key
        self._capabilities = capabilities

    async def candidates(self, request: SearchRequest) -> CandidateSet:
        """The discovered pages; ``incomplete`` when discovery had to stop at its budget."""
        # Verify the credential before anything cached is served (one request per client).
        await self._client.ensure_identity()
        settings = self._cache.settings
        report = await discover(
            self._client, self._cache.directory(self._tenant_key), settings, self._capabilities
        )
        pages = report.pages
        if request.project_id is not None:
            pages = [page for page in pages if page.project_id == request.project_id]
        notes: list[str] = []
        if not report.complete:
            notes.append(
                f"wiki page discovery is not complete: ids below {report.next_id} were checked "
                f"(at most {settings.probe_budget} per search); the next search continues"
            )
        if report.unread_ids:
            notes.append(f"{report.unread_ids} wiki page id(s) could not be read; retried later")
        if pages and all("text" not in page.document.fields for page in pages):
            notes.append(NO_TEXT_NOTE)
        return CandidateSet(
            records=pages,
            notes=notes,
            failures=report.unread_ids,
            incomplete=not report.complete,
        )
