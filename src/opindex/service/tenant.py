"""A tenant as the service sees it: its paths, state, index, freshness, capabilities, client.

One ``Tenant`` per configured tenant owns everything a search or read needs of it: the
index reader (held as the ``IndexBackend`` interface), the state reader, the freshness
assessment (``opindex.sync.assess_freshness``, the one policy), the server capabilities
the last sync stored (typed), the API client and the live searcher. Everything is opened
lazily and kept for the life of the service, so a search pays for neither a Tantivy open
nor an SQLite connection nor a TLS handshake; the client and the live searcher are even
imported on first use, so a search answered from the index never loads httpx (DECISIONS
D159). Nothing here creates a tenant directory: a tenant that was never synced simply has
no index ("missing").
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

from opindex.config import TenantConfig
from opindex.disclosure import public_detail
from opindex.errors import IndexMissingError, IndexUnavailableError, StateError
from opindex.index import IndexBackend, IndexDirectory, TenantIndex
from opindex.moments import Clock
from opindex.service.directory import DIRECTORY_TTL_SECONDS, Directory, read_directory
from opindex.service.relaxed_search import Thesaurus, merge_thesauri
from opindex.state import Checkpoint, StateStore, state_db_path
from opindex.sync import Freshness, assess_freshness, index_directory

if TYPE_CHECKING:
    import httpx

    from opindex.live import LiveSearcher, WikiDirectoryCache
    from opindex.openproject import ApiKeyCredential, OpenProjectClient, ServerCapabilities

logger = logging.getLogger(__name__)

STATE_BUSY_TIMEOUT_SECONDS = 0.25
"""How long a search waits for a state database another process holds locked; past it,
the index age counts as unknown (the search is answered live, with a note)."""

OUTAGE_COOLDOWN_SECONDS = 30.0
"""After OpenProject proved unreachable, searches stop asking it for this long: a stale
index answers at once instead of after the live path's whole retry budget."""


@dataclasses.dataclass(frozen=True, slots=True)
class StateRows:
    """The state rows freshness reads: the last successful sync's end and an unfinished
    full sync's checkpoint, as of the connection's ``data_version``."""

    version: int
    indexed_at: datetime | None
    checkpoint: Checkpoint | None


class Tenant:
    """One configured tenant (or a caller's own credential, live only) and its handles.

    *data_dir* None means "no index may ever be used" (an unconfigured credential);
    *wiki_cache* returns the process-wide wiki directory cache the live searcher shares.
    """

    def __init__(
        self,
        tenant: TenantConfig,
        data_dir: Path | None,
        *,
        clock: Clock,
        transport: httpx.AsyncBaseTransport | None = None,
        wiki_cache: Callable[[], WikiDirectoryCache] | None = None,
    ) -> None:
        self.config = tenant
        self.name = tenant.name
        self._data_dir = data_dir
        self._clock = clock
        self._transport = transport
        self._wiki_cache = wiki_cache
        self.thesaurus: Thesaurus = merge_thesauri(tenant.thesaurus)
        self._index: TenantIndex | None = None
        self._state: StateStore | None = None
        self._client: OpenProjectClient | None = None
        self._live: LiveSearcher | None = None
        self._directory: tuple[datetime, Directory] | None = None
        self._published: tuple[int, int, int] | None = None
        self._pointers: IndexDirectory | None = None
        self._rows: StateRows | None = None
        """What freshness last read of the state, and the data version it read."""
        """CURRENT's stamp when it last named a generation (``_has_index``)."""
        self._damage: tuple[tuple[int, int, int] | None, str] | None = None
        """(CURRENT's stamp, what is wrong) when a search found the index damaged."""
        self.on_damage: Callable[[str], object] | None = None
        """Called with the tenant's name once per damaged generation (a sync soon)."""

    # --- index and freshness ----------------------------------------------------------

    @property
    def may_use_index(self) -> bool:
        """False for a caller's own credential: such requests never read an index."""
        return self._data_dir is not None

    def _state_store(self) -> StateStore | None:
        if self._state is None and self._data_dir is not None:
            if not state_db_path(self._data_dir, self.name).is_file():
                return None
            self._state = StateStore.for_tenant(
                self._data_dir,
                self.name,
                clock=self._clock,
                busy_timeout_seconds=STATE_BUSY_TIMEOUT_SECONDS,
            )
        return self._state

    def index(self) -> IndexBackend:
        """The tenant's index reader (IndexUnavailableError if it was never built)."""
        if self._data_dir is None:
            raise IndexUnavailableError("a caller's own credential never reads an index")
        if self._index is None:
            directory = index_directory(self._data_dir, self.name)
            if directory.current() is None:
                raise IndexMissingError(
                    f"tenant {self.name!r} has no index yet; run `opindex sync`"
                )
            self._index = TenantIndex(directory)
        return self._index

    def freshness(self) -> Freshness:
        """The index's freshness now (see :meth:`_assess`), noting a full sync that is
        being built in a fresh generation meanwhile (answers keep coming from the previous
        generation, or live when there is none)."""
        found = self._assess()
        if found.problem is not None:
            return found
        try:
            state = self._state_store()
            checkpoint = self._state_rows(state).checkpoint if state is not None else None
        except StateError:
            return found
        if checkpoint is None:
            return found
        serving = "the previous index serves" if found.has_index else "searches go live"
        note = (
            f"a full sync is in progress ({checkpoint.records_done} of "
            f"{checkpoint.records_total} work packages committed); until it finishes {serving}"
        )
        return dataclasses.replace(found, problem=note)

    def note_damage(self, error: IndexUnavailableError) -> None:
        """Remember that a search found the published index unreadable (*error*): the
        tenant reads as ``damaged`` until a new generation is published, and
        ``on_damage`` hears of it once per generation (not once per search)."""
        if isinstance(error, IndexMissingError) or self._data_dir is None:
            return
        stamp = index_directory(self._data_dir, self.name).pointer_stamp()
        first = self._damage is None or self._damage[0] != stamp
        self._damage = (stamp, public_detail(error))
        if first and self.on_damage is not None:
            try:
                self.on_damage(self.name)
            except Exception:  # a listener's failure must not fail the search
                logger.exception("tenant %s: the damage listener failed", self.name)

    def _noted_damage(self) -> str | None:
        """What a search found wrong with the index still published, if anything."""
        if self._damage is None or self._data_dir is None:
            return None
        stamp, problem = self._damage
        if index_directory(self._data_dir, self.name).pointer_stamp() != stamp:
            self._damage = None  # a new generation: the damage is behind us
            return None
        return problem

    def _assess(self) -> Freshness:
        """The index's freshness now: time of the last successful sync vs max staleness.

        An index whose pointer cannot be read counts as missing, and an index whose state
        database cannot be read as stale of unknown age; both carry the ``problem``, so a
        search answered live can say why, and both are logged.
        """
        if self._data_dir is None:
            return Freshness("missing")
        damage = self._noted_damage()
        if damage is not None:
            return Freshness("damaged", problem=damage)
        try:
            if not self._has_index(self._data_dir):
                return Freshness("missing")
        except IndexUnavailableError as exc:
            logger.warning("tenant %s: index unreadable: %s", self.name, exc)
            return Freshness("missing", problem=public_detail(exc))
        try:
            state = self._state_store()
            indexed_at = self._state_rows(state).indexed_at if state is not None else None
        except StateError as exc:
            logger.warning("tenant %s: cannot read the state database: %s", self.name, exc)
            self._close_state()
            problem = (
                f"the state database could not be read ({public_detail(exc)}), so the index "
                "age is unknown"
            )
            return Freshness("stale", problem=problem)
        return assess_freshness(
            indexed_at,
            max_staleness=timedelta(seconds=self.config.max_staleness_seconds),
            now=self._clock(),
        )

    def _state_rows(self, state: StateStore) -> StateRows:
        """The state rows freshness needs, read again only after another connection
        committed (``data_version``): a search reads one pragma, not the rows."""
        version = state.data_version()
        if self._rows is None or self._rows.version != version:
            run = state.last_successful_run()
            finished = run.finished_at if run is not None else None
            self._rows = StateRows(version, finished, state.get_checkpoint())
        return self._rows

    def _has_index(self, data_dir: Path) -> bool:
        """Whether CURRENT names a generation; read again only when its stamp changed
        (a publish replaces the file: a new inode), as ``TenantIndex`` does."""
        if self._pointers is None:
            self._pointers = index_directory(data_dir, self.name)
        pointers = self._pointers
        stamp = pointers.pointer_stamp()
        if stamp is None:
            self._published = None
            return False
        if stamp != self._published:
            if pointers.current() is None:
                return False
            self._published = stamp
        return True

    def _close_state(self) -> None:
        self._rows = None  # data_version is per connection
        if self._state is not None:
            with contextlib.suppress(StateError):
                self._state.close()
            self._state = None

    def capabilities(self) -> ServerCapabilities | None:
        """Server capabilities detected by the last sync, if any (spares live probes)."""
        from opindex.openproject import stored_capabilities  # the live path's, on first use

        try:
            state = self._state_store()
            stored = state.get_capabilities() if state is not None else None
        except StateError:
            return None
        return stored_capabilities(stored.data) if stored is not None else None

    # --- live path --------------------------------------------------------------------

    def client(self) -> OpenProjectClient:
        """The tenant's API client (one connection pool for the life of the service)."""
        if self._client is None:
            from opindex.openproject import OpenProjectClient, OutageMemory  # with httpx

            self._client = OpenProjectClient(
                self.config.base_url,
                self._credential(),
                transport=self._transport,
                outage=OutageMemory(OUTAGE_COOLDOWN_SECONDS),
            )
        return self._client

    def _credential(self) -> ApiKeyCredential:
        from opindex.openproject import ApiKeyCredential

        return ApiKeyCredential(self.config.api_key.reveal(), self.config.auth)

    def live(self) -> LiveSearcher:
        """The tenant's live searcher (shares the process-wide wiki directory cache)."""
        if self._live is None:
            from opindex.live import LiveSearcher, tenant_cache_key  # loaded on first use

            client = self.client()
            key = tenant_cache_key(self.config.base_url, self._credential())
            shared = self._wiki_cache() if self._wiki_cache is not None else None
            self._live = LiveSearcher(
                client,
                wiki_cache=shared,
                tenant_key=key if shared is not None else None,
                capabilities=self.capabilities(),
            )
        return self._live

    async def directory(self) -> Directory:
        """The projects, users, statuses and types the tenant's account sees (read live,
        reused for DIRECTORY_TTL_SECONDS)."""
        now = self._clock()
        if self._directory is not None:
            read_at, directory = self._directory
            if timedelta(0) <= now - read_at < timedelta(seconds=DIRECTORY_TTL_SECONDS):
                return directory
        directory = await read_directory(self.client())
        self._directory = (now, directory)
        return directory

    async def aclose(self) -> None:
        """Close the client, the index reader and the state connection."""
        if self._client is not None:
            await self._client.aclose()
            self._client = None
            self._live = None
        if self._index is not None:
            self._index.close()
            self._index = None
        self._close_state()
