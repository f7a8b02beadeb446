"""The work-package manifest: what the server shows, diffed against the index.

Two ways to read it, both ending with the index holding exactly the visible records:

- **The listing**: ``id`` and ``updatedAt`` of every work package the account can see
  (``filters=[]``, ``select=total,elements/id,elements/updatedAt``, pageSize 1000: ten
  requests at 10k). Ids whose ``updatedAt`` differs from the indexed version are fetched
  (compared for equality, never ordered, so a record dated in the future cannot hide
  later changes), and what the listing no longer shows (deleted, or moved out of sight)
  is removed once a direct ``id =`` query confirms each is gone.
- **The recent pages** (incremental runs): the same trimmed listing sorted newest first,
  read only until a page reaches back past the *mark* (the server's ``Date`` when the
  previous manifest began, minus the safety margin; never a record's own date), plus the
  collection's ``total``. Every change since the mark is on those pages; a record dated
  in the future only takes a place at the top. If ``total`` equals the indexed records
  plus the new ones seen, nothing vanished and nothing appeared unseen, so the rest of
  the listing is not read: one request at 10k or 100k when nothing changed. Any other
  count falls back to the listing in the same run. The one case a count cannot see — a
  record gone while another, unchanged one came into sight (a role gaining a permission)
  — is settled by the listing each run takes at least every
  ``deletion_sweep_interval_seconds``.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from datetime import datetime

from opindex.openproject import SortBy
from opindex.state import RecordVersion
from opindex.sync.sweep import remove_vanished
from opindex.sync.sync_session import SyncSession
from opindex.sync.work_packages import IDS_PER_REQUEST, KIND, fetch_work_packages

logger = logging.getLogger(__name__)

Checkpoint = Callable[[int, int, int], Awaitable[None]]
"""Called after every fetched chunk with (read by this run, kept from before, listed)."""

NEWEST_FIRST: SortBy = (("updatedAt", "desc"), ("id", "asc"))
"""The order of the recent pages (ties by id, so offsets walk a stable order)."""


@dataclass(frozen=True, slots=True)
class ManifestResult:
    """What one manifest comparison found and did.

    ``listed``: work packages the server shows; ``added``/``changed``: fetched because the
    index lacked them / held another ``updatedAt``; ``removed``: deleted from the index;
    ``server_time``: the server's ``Date`` when the manifest began (the next mark);
    ``complete``: every visible id was listed (else only the recent pages and the count).
    """

    listed: int
    added: int
    changed: int
    removed: int
    server_time: datetime | None
    complete: bool = True


async def list_manifest(session: SyncSession) -> tuple[dict[int, datetime | None], datetime | None]:
    """``{id: updatedAt}`` of every visible work package, closed ones included, and the
    server's ``Date`` of the first page."""
    manifest: dict[int, datetime | None] = {}
    began: datetime | None = None
    async for page in session.client.work_package_ids():
        began = began or session.client.server_date
        manifest.update((wp.id, wp.updated_at) for wp in page.elements)
    return manifest, began


@dataclass(frozen=True, slots=True)
class RecentPages:
    """The newest-first pages down to the mark: ``{id: updatedAt}``, the collection's
    ``total``, and the server's ``Date`` of the first page."""

    versions: dict[int, datetime]
    total: int
    began: datetime | None


async def list_recent(session: SyncSession, mark: datetime) -> RecentPages | None:
    """Read newest-first pages until one reaches back past ``mark``. ``None`` when the
    answer cannot show every change since the mark (no ``total`` or ``Date``, a record
    without ``updatedAt``, a mark ahead of the server's clock): the caller lists
    everything instead."""
    versions: dict[int, datetime] = {}
    total: int | None = None
    began: datetime | None = None
    walk = session.client.work_package_ids(sort_by=NEWEST_FIRST).pages()
    async with contextlib.aclosing(walk):
        async for page in walk:
            began = began or session.client.server_date
            if began is None or mark > began:
                return None  # a mark ahead of the server's clock shows nothing reliably
            total = page.total if total is None else total
            dated = {wp.id: wp.updated_at for wp in page.elements if wp.updated_at is not None}
            if total is None or len(dated) < len(page.elements):
                return None
            versions.update(dated)
            if not dated or min(dated.values()) < mark:
                break
    return None if total is None else RecentPages(versions, total, began)


def unseen_change(recent: RecentPages, known: Mapping[int, object]) -> bool:
    """Whether the count says something happened that the recent pages do not show: a
    record vanished, or one came into sight with an old ``updatedAt``."""
    new = sum(1 for wp_id in recent.versions if wp_id not in known)
    return recent.total != len(known) + new


def stale_ids(
    manifest: Mapping[int, datetime | None],
    base: Mapping[int, datetime | None],
    *,
    reread_all: bool,
) -> tuple[list[int], list[int]]:
    """(new ids, changed ids), ascending: what ``base`` (id → indexed ``updatedAt``) lacks
    or holds in another version. ``reread_all`` counts every known id as changed."""
    added: list[int] = []
    changed: list[int] = []
    for wp_id in sorted(manifest):
        if wp_id not in base:
            added.append(wp_id)
        elif reread_all or base[wp_id] is None or base[wp_id] != manifest[wp_id]:
            changed.append(wp_id)
    return added, changed


async def sync_by_manifest(
    session: SyncSession,
    *,
    resumed: Mapping[int, RecordVersion] | None = None,
    checkpoint: Checkpoint | None = None,
    chunk: int = IDS_PER_REQUEST,
    mark: datetime | None = None,
) -> ManifestResult:
    """Bring the indexed work packages in line with the manifest.

    ``resumed``: the versions a checkpointed, unpublished generation already holds (a
    resumed full sync); those still current are kept, not read again. Otherwise the
    known records are the base, and a full run (or one that cannot trust them) re-reads
    everything listed. ``checkpoint`` is awaited after every ``chunk`` ids fetched.
    ``mark``: read only the recent pages back to this time, if their count agrees (see
    the module docstring); ``None`` lists everything.
    """
    recent: RecentPages | None = None
    if mark is not None and resumed is None and session.trust_known and not session.full:
        recent = await list_recent(session, mark)
        if recent is not None and not unseen_change(recent, session.known_of(KIND)):
            return await _apply_recent(session, recent)
    if recent is not None and len(recent.versions) >= recent.total:
        # The recent pages held every visible record: they are the listing.
        manifest, server_time = dict[int, datetime | None](recent.versions), recent.began
    else:
        if recent is not None:
            logger.info("%s: the work-package count moved; listing all", session.tenant.name)
        manifest, server_time = await list_manifest(session)
    if resumed is not None:
        base = {wp_id: version.updated_at for wp_id, version in resumed.items()}
        reread_all = False
    else:
        base = {wp_id: entry.updated_at for wp_id, entry in session.known_of(KIND).items()}
        reread_all = session.full or not session.trust_known
    added, changed = stale_ids(manifest, base, reread_all=reread_all)
    todo = [*added, *changed]
    todo.sort()
    current = set(manifest) - set(todo)
    if resumed is not None:
        for wp_id in sorted(current):
            session.changes.fetched(KIND, resumed[wp_id], written=False)
    else:
        session.changes.still_exists(KIND, current)
    if todo:
        logger.info(
            "%s: manifest of %d work packages: %d new, %d changed",
            session.tenant.name,
            len(manifest),
            len(added),
            len(changed),
        )
    found: set[int] = set()
    step = max(1, min(chunk, IDS_PER_REQUEST))
    for start in range(0, len(todo), step):
        ids = todo[start : start + step]
        found |= await fetch_work_packages(session, ids)
        if checkpoint is not None:
            await checkpoint(start + len(ids), len(current), len(manifest))
    removed = await session.remove(KIND, sorted(set(todo) - found))
    removed += await remove_vanished(session, manifest.keys())
    return ManifestResult(len(manifest), len(added), len(changed), removed, server_time)


async def _apply_recent(session: SyncSession, recent: RecentPages) -> ManifestResult:
    """Fetch what the recent pages show new or changed; every other known record stands."""
    known = session.known_of(KIND)
    base = {wp_id: entry.updated_at for wp_id, entry in known.items()}
    added, changed = stale_ids(recent.versions, base, reread_all=False)
    todo = sorted([*added, *changed])
    session.changes.still_exists(KIND, set(known) - set(todo))
    found: set[int] = set()
    for start in range(0, len(todo), IDS_PER_REQUEST):
        found |= await fetch_work_packages(session, todo[start : start + IDS_PER_REQUEST])
    removed = await session.remove(KIND, sorted(set(todo) - found))
    return ManifestResult(
        recent.total, len(added), len(changed), removed, recent.began, complete=False
    )
