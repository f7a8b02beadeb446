"""The work-package manifest: every visible id with its ``updatedAt``, diffed against the index.

Each run lists ``id`` and ``updatedAt`` of every work package the account can see
(``filters=[]``, ``select=total,elements/id,elements/updatedAt``, pageSize 1000: ten
requests at 10k), fetches only those whose ``updatedAt`` differs from the indexed version
(compared for equality, never ordered, so a record dated in the future cannot hide later
changes), and removes what the listing no longer shows (deleted, or moved out of sight),
once a direct ``id =`` query confirms each is gone. Nothing depends on a high-water mark.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from datetime import datetime

from opindex.state import RecordVersion
from opindex.sync.sweep import remove_vanished
from opindex.sync.sync_session import SyncSession
from opindex.sync.work_packages import IDS_PER_REQUEST, KIND, fetch_work_packages

logger = logging.getLogger(__name__)

Checkpoint = Callable[[int, int, int], Awaitable[None]]
"""Called after every fetched chunk with (read by this run, kept from before, listed)."""


@dataclass(frozen=True, slots=True)
class ManifestResult:
    """What one manifest comparison found and did.

    ``listed``: ids the server showed; ``added``/``changed``: fetched because the index
    lacked them / held another ``updatedAt``; ``removed``: deleted from the index;
    ``server_time``: the server's ``Date`` when the listing ended.
    """

    listed: int
    added: int
    changed: int
    removed: int
    server_time: datetime | None


async def list_manifest(session: SyncSession) -> dict[int, datetime | None]:
    """``{id: updatedAt}`` of every visible work package, closed ones included."""
    listing = await session.client.work_package_ids().collect()
    return {wp.id: wp.updated_at for wp in listing}


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
) -> ManifestResult:
    """Bring the indexed work packages in line with the manifest.

    ``resumed``: the versions a checkpointed, unpublished generation already holds (a
    resumed full sync); those still current are kept, not read again. Otherwise the
    known records are the base, and a full run (or one that cannot trust them) re-reads
    everything listed. ``checkpoint`` is awaited after every ``chunk`` ids fetched.
    """
    manifest = await list_manifest(session)
    server_time = session.client.server_date
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
