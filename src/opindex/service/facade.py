"""The Service: one façade over search (index or live), reads, status and tenant lookup.

The MCP server and the CLI are thin adapters over this class; every answer is a
pydantic envelope from ``opindex.envelope`` that says where it came from.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Self

from opindex.config import Config, Secret, TenantConfig
from opindex.disclosure import public_detail
from opindex.envelope import (
    MAX_ID,
    ActivityListResponse,
    AnsweredBy,
    GlobalSearchResponse,
    LookupEntry,
    LookupResponse,
    MatchModeName,
    ReadMeta,
    RecordResponse,
    SearchRequest,
    SearchResponse,
    StatusFilter,
    WorkPackageListResponse,
)
from opindex.errors import (
    AuthenticationError,
    IndexUnavailableError,
    InvalidArgumentError,
    OpenProjectError,
)
from opindex.moments import Clock, utc_now
from opindex.records import Record
from opindex.search import KINDS, Kind
from opindex.service import record_reads
from opindex.service.answer_page import cut_page, paging
from opindex.service.directory import DIRECTORY_KINDS, DirectoryKind
from opindex.service.global_search import search_kinds
from opindex.service.named_filters import FilterNames, named_request
from opindex.service.routing import is_upstream_unavailable
from opindex.service.search_flow import search_tenant
from opindex.service.tenant import Tenant
from opindex.service.work_package_links import with_links
from opindex.sync import Freshness, TenantStatus, tenant_status

if TYPE_CHECKING:
    import httpx

    from opindex.live import WikiDirectoryCache

CALLER_TENANT = "(caller credential)"
"""``meta.tenant`` of a live search made with a caller's own credential (never a valid
tenant name, so it cannot be mistaken for one)."""


class Service:
    """Search and reads for the tenants of one configuration.

    Build it with :meth:`from_config`; use it as ``async with`` or call :meth:`aclose`.
    Methods taking ``tenant`` accept None when exactly one tenant is configured; an
    unknown tenant raises ``InvalidArgumentError``. Errors are ``OpindexError``s.

    Calls:

    - ``await search(request, tenant=)`` → ``SearchResponse`` (index or live, see there)
    - ``await search_with_credential(request, credential, base_url=)`` → live only
    - ``await get_record(tenant, kind, id)`` → ``RecordResponse``
    - ``await list_activities(tenant, work_package_id, query, match_mode)``
    - ``await list_work_packages(tenant, subject=, project_id=, status=, ...)``
    - ``status(tenant)`` → ``list[TenantStatus]``; ``tenant_for_credential(key)``

    Per tenant it keeps one API client, one index reader and one state connection, opened
    on first use. Index searches run in a worker thread (Tantivy and the scorer), so the
    event loop stays free.
    """

    def __init__(
        self,
        config: Config,
        *,
        clock: Clock | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.config = config
        self._clock = clock or utc_now
        self._transport = transport
        self._wiki_cache: WikiDirectoryCache | None = None
        self._runtimes = {
            tenant.name: self._runtime(tenant, config.data_dir) for tenant in config.tenants
        }

    @classmethod
    def from_config(
        cls,
        config: Config,
        *,
        clock: Clock | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> Service:
        """A service for *config*. *clock* (aware datetimes) decides index freshness;
        *transport* replaces the network for every OpenProject client (tests)."""
        return cls(config, clock=clock, transport=transport)

    def on_damage(self, listener: Callable[[str], object]) -> None:
        """Call *listener* with a tenant's name when a read finds its index damaged
        (once per damaged generation): the server asks its daemon for a sync soon."""
        for runtime in self._runtimes.values():
            runtime.on_damage = listener

    def _runtime(self, tenant: TenantConfig, data_dir: Path | None) -> Tenant:
        return Tenant(
            tenant,
            data_dir,
            clock=self._clock,
            transport=self._transport,
            wiki_cache=self._shared_wiki_cache,
        )

    def _shared_wiki_cache(self) -> WikiDirectoryCache:
        """The wiki directory cache every tenant's live searcher shares (created, with the
        live path, by the first live search: an index answer never imports it)."""
        if self._wiki_cache is None:
            from opindex.live import WikiDirectoryCache

            self._wiki_cache = WikiDirectoryCache()
        return self._wiki_cache

    # --- tenants ----------------------------------------------------------------------

    @property
    def tenant_names(self) -> tuple[str, ...]:
        """Configured tenant names, in configuration order."""
        return self.config.tenant_names

    def resolve_tenant(self, tenant: str | None) -> str:
        """The tenant a call is for: *tenant*, or the only one configured."""
        if tenant is None:
            if len(self._runtimes) == 1:
                return next(iter(self._runtimes))
            raise InvalidArgumentError(
                "several tenants are configured; name one of: " + ", ".join(self.tenant_names)
            )
        if tenant not in self._runtimes:
            known = ", ".join(self.tenant_names)
            raise InvalidArgumentError(f"unknown tenant {tenant!r}; configured tenants: {known}")
        return tenant

    def tenant_for_credential(self, credential: str) -> str | None:
        """The tenant whose API key is *credential* (constant-time comparison), or None."""
        found = self.config.tenant_for_credential(credential)
        return found.name if found is not None else None

    # --- search -----------------------------------------------------------------------

    async def search(
        self,
        request: SearchRequest,
        *,
        tenant: str | None = None,
        names: FilterNames | None = None,
    ) -> SearchResponse:
        """Ranked results for *request* from the index or the live path.

        ``request.source``: ``auto`` follows the freshness policy (fresh index → index;
        missing or stale → live; live unreachable and a stale index exists → the stale
        index, ``meta.index_state == "stale"``), ``index`` and ``live`` force a path.
        On zero hits the relaxation strategies run against the same path unless
        ``request.fallback`` is False. ``meta.total`` counts every record that matched on
        the index path; on the live path, the records returned. *names*: filters by
        name, resolved against what the tenant's account sees.
        """
        runtime = self._runtimes[self.resolve_tenant(tenant)]
        return await search_tenant(runtime, await named_request(runtime.directory, request, names))

    async def search_everything(
        self,
        request: SearchRequest,
        kinds: Sequence[Kind] = KINDS,
        *,
        tenant: str | None = None,
        names: FilterNames | None = None,
    ) -> GlobalSearchResponse:
        """*request* over several *kinds* at once (``request.kind`` is ignored), merged
        into one ranking; each kind follows the freshness policy on its own, and a kind
        that cannot be searched is named in ``meta.not_searched`` with the reason."""
        name = self.resolve_tenant(tenant)
        runtime = self._runtimes[name]
        resolved = await named_request(runtime.directory, request, names)

        async def one(kind_request: SearchRequest) -> SearchResponse:
            return await search_tenant(runtime, kind_request)

        return await search_kinds(one, resolved, kinds, name)

    async def search_with_credential(
        self,
        request: SearchRequest,
        credential: str,
        *,
        base_url: str | None = None,
        names: FilterNames | None = None,
    ) -> SearchResponse:
        """A live-only search made with a caller's own OpenProject credential.

        Allowed only when ``[server] allow_unknown_credentials_live`` is true; otherwise
        ``AuthenticationError``. Never reads any index (``source`` ``index`` is refused).
        *base_url* defaults to the one base URL all tenants share.
        """
        if not self.config.server.allow_unknown_credentials_live:
            raise AuthenticationError(
                "this credential matches no configured tenant, and searching with other "
                "credentials is disabled ([server] allow_unknown_credentials_live)"
            )
        if request.source == "index":
            raise InvalidArgumentError(
                "searches with a caller's own credential are answered live only; "
                "use source 'auto' or 'live'"
            )
        if not credential or not credential.strip():
            raise AuthenticationError("an empty credential cannot be used")
        tenant = TenantConfig(
            name=CALLER_TENANT,
            base_url=self._caller_base_url(base_url),
            api_key=Secret(credential.strip()),
        )
        runtime = self._runtime(tenant, None)
        try:
            return await search_tenant(
                runtime, await named_request(runtime.directory, request, names)
            )
        finally:
            await runtime.aclose()

    def _caller_base_url(self, base_url: str | None) -> str:
        known = sorted({tenant.base_url for tenant in self.config.tenants})
        if base_url is None:
            if len(known) == 1:
                return known[0]
            raise InvalidArgumentError("tenants use several OpenProject URLs; pass base_url")
        cleaned = base_url.rstrip("/")
        if cleaned not in known:
            raise InvalidArgumentError(
                "base_url must be the URL of a configured tenant: " + ", ".join(known)
            )
        return cleaned

    # --- reads ------------------------------------------------------------------------

    async def get_record(
        self, tenant: str | None, kind: str, record_id: int, *, links: bool = False
    ) -> RecordResponse:
        """One whole record: from the index when it is fresh (and holds the record), else
        live; a stale index answers when OpenProject is unreachable. ``NotFoundError``
        when the record does not exist or is not visible. *links*: a work package's
        relations and attachment names too (read live)."""
        response = await self._get_record(tenant, kind, record_id)
        if links and response.record.kind == "work_package":
            runtime = self._runtimes[self.resolve_tenant(tenant)]
            return await with_links(runtime.client(), response)
        return response

    async def _get_record(self, tenant: str | None, kind: str, record_id: int) -> RecordResponse:
        runtime = self._runtimes[self.resolve_tenant(tenant)]
        checked = record_reads.check_kind(kind)
        if isinstance(record_id, bool) or not isinstance(record_id, int):
            raise InvalidArgumentError(f"record ids are integers, not {record_id!r}")
        if not 1 <= record_id <= MAX_ID:
            raise InvalidArgumentError(f"record ids are 1 … {MAX_ID}, not {record_id}")
        freshness = runtime.freshness()
        base_url = runtime.config.base_url
        notes = [freshness.problem] if freshness.problem is not None else []
        if freshness.state == "fresh":
            stored = await self._from_index(runtime, checked, record_id, notes)
            if stored is not None:
                out = record_reads.record_out(stored, base_url)
                meta = _read_meta(runtime, "index", freshness, notes)
                return RecordResponse(record=out, meta=meta)
        source: AnsweredBy = "live"
        try:
            record = await record_reads.fetch_record(runtime.client(), checked, record_id)
        except OpenProjectError as exc:
            if freshness.state != "stale" or not is_upstream_unavailable(exc):
                raise
            found = await self._from_index(runtime, checked, record_id, notes)
            if found is None:
                raise
            record, source = found, "index"
            notes.append("OpenProject could not be reached; read from the stale index")
        meta = _read_meta(runtime, source, freshness, notes)
        return RecordResponse(record=record_reads.record_out(record, base_url), meta=meta)

    @staticmethod
    async def _from_index(
        runtime: Tenant, kind: str, record_id: int, notes: list[str]
    ) -> Record | None:
        """The stored record, or None when the index lacks it or cannot be read (noted)."""
        try:
            index = runtime.index()
            return await asyncio.to_thread(index.get, kind, record_id)
        except IndexUnavailableError as exc:
            runtime.note_damage(exc)
            notes.append(f"{public_detail(exc)}; read live")
            return None

    async def list_activities(
        self,
        tenant: str | None,
        work_package_id: int,
        query: str | None = None,
        match_mode: MatchModeName = "fuzzy",
        *,
        limit: int | None = None,
    ) -> ActivityListResponse:
        """The activities of a work package (live), ranked client-side when *query* is
        given (no extra API call), else in API order."""
        runtime = self._runtimes[self.resolve_tenant(tenant)]
        listing = await runtime.live().list_activities(
            work_package_id, query, match_mode, limit=limit
        )
        return ActivityListResponse(
            workPackageId=listing.work_package_id,
            results=record_reads.activities_out(listing),
            ranked=listing.ranked,
            total=listing.total,
            meta=_read_meta(runtime, "live", runtime.freshness()),
        )

    async def list_work_packages(
        self,
        tenant: str | None,
        *,
        subject: str | None = None,
        project_id: int | None = None,
        status: StatusFilter | list[int] = "open",
        type_id: int | None = None,
        assignee_id: int | None = None,
        limit: int = 50,
        names: FilterNames | None = None,
        updated_after: datetime | None = None,
        updated_before: datetime | None = None,
        cursor: str | None = None,
    ) -> WorkPackageListResponse:
        """OpenProject's own filtered listing (server-side ``subject ~`` and filters),
        newest first, unranked: the semantics of a plain work-package list. Like
        OpenProject's default, only open work packages unless *status* says otherwise.
        *names* given replace the id filters (see ``search``). *cursor*: the
        ``next_cursor`` of the previous page."""
        runtime = self._runtimes[self.resolve_tenant(tenant)]
        request = SearchRequest(
            kind="work_package",
            project_id=project_id,
            status=status,
            type_id=type_id,
            assignee_id=assignee_id,
            updated_after=updated_after,
            updated_before=updated_before,
        )
        request = await named_request(runtime.directory, request, names)
        filters = record_reads.listing_filters(
            subject=subject,
            project_id=request.project_id,
            status=request.status,
            type_id=request.type_id,
            assignee_id=request.assignee_id,
            author_id=request.author_id,
            updated_after=request.updated_after,
            updated_before=request.updated_before,
        )
        page = paging(request.model_copy(update={"query": subject or "", "cursor": cursor}), "list")
        page = dataclasses.replace(page, limit=limit)
        results, total, ids = await record_reads.list_work_packages(
            runtime.client(), filters, limit, runtime.config.base_url, offset=page.offset
        )
        cut = cut_page([("work_package", i) for i in ids], total, page, None)
        meta = _read_meta(runtime, "live", runtime.freshness())
        return WorkPackageListResponse(
            results=results, total=total, meta=meta, next_cursor=cut.next_cursor
        )

    async def lookup(
        self, tenant: str | None, kind: DirectoryKind, text: str | None = None
    ) -> LookupResponse:
        """The projects, users, statuses or types (*kind*) the tenant's account sees,
        those whose name or handle contains *text* when it is given (read live, cached
        for a few minutes)."""
        runtime = self._runtimes[self.resolve_tenant(tenant)]
        if kind not in DIRECTORY_KINDS:
            raise InvalidArgumentError(f"kind must be one of {', '.join(DIRECTORY_KINDS)}")
        directory = await runtime.directory()
        entries = directory.matching(kind, text)
        return LookupResponse(
            kind=kind,
            results=[
                LookupEntry(id=e.id, name=e.name, handle=e.handle, closed=e.closed) for e in entries
            ],
            me=directory.me if kind == "users" else None,
            meta=_read_meta(runtime, "live", runtime.freshness()),
        )

    # --- status and lifecycle ---------------------------------------------------------

    def status(self, tenant: str | None = None) -> list[TenantStatus]:
        """Index status of one tenant, or of every tenant when *tenant* is None and
        several are configured."""
        if tenant is None and len(self._runtimes) > 1:
            names = list(self.tenant_names)
        else:
            names = [self.resolve_tenant(tenant)]
        return [
            tenant_status(self.config.tenant(name), self.config.data_dir, clock=self._clock)
            for name in names
        ]

    async def aclose(self) -> None:
        """Close every client, index reader and state connection."""
        await asyncio.gather(*(runtime.aclose() for runtime in self._runtimes.values()))

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()


def _read_meta(
    runtime: Tenant,
    source: AnsweredBy,
    freshness: Freshness,
    notes: list[str] | None = None,
) -> ReadMeta:
    return ReadMeta(
        tenant=runtime.name,
        source=source,
        index_state=freshness.state,
        indexed_at=freshness.indexed_at,
        age_seconds=freshness.age_seconds,
        notes=notes or [],
    )
