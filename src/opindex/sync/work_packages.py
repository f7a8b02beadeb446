"""Work packages: fetched by id (100 per ``id =`` query) and indexed with their activities.

Which ids to fetch is decided by the manifest (:mod:`opindex.sync.manifest`): ids are
stable, so fetching by id skips nothing when records change during the run, unlike an
offset walk over a list ordered by ``updatedAt``.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from opindex.errors import NotFoundError
from opindex.openproject import (
    Activity,
    WorkPackage,
    equals,
    resolve_status_closed,
)
from opindex.record_builders import work_package_record
from opindex.records import Record
from opindex.search import Kind
from opindex.sync.sync_session import SyncSession

logger = logging.getLogger(__name__)

KIND: Kind = "work_package"
RESOURCE = "work_packages"
"""Name of the work-package high-water mark (server clock minus the margin; reports only)."""
PAGE_SIZE = 1000
"""Requested page size; the server clamps it to its maximum and says so."""
IDS_PER_REQUEST = 100
"""Ids per ``id =`` filter when fetching known ids directly."""


async def index_work_packages(session: SyncSession, listed: Sequence[WorkPackage]) -> None:
    """Read the activities of the listed work packages that changed, and index them.

    In an incremental run a work package whose ``updatedAt`` equals the indexed one is
    only marked as seen. A work package that vanished before its activities could be
    read is removed.
    """
    known = session.known_of(KIND)
    todo: list[WorkPackage] = []
    unchanged: list[int] = []
    for wp in listed:
        entry = known.get(wp.id)
        same = (
            entry is not None and entry.updated_at is not None and entry.updated_at == wp.updated_at
        )
        if same and session.trust_known and not session.full:
            unchanged.append(wp.id)
        else:
            todo.append(wp)
    session.changes.still_exists(KIND, unchanged)
    if not todo:
        return
    activities = await session.bounded(todo, lambda wp: _activities(session, wp.id))
    closed_by_status: dict[int, bool] = {}
    if any(wp.status_is_closed is None for wp in todo):
        closed_by_status = await session.closed_by_status()
    records: list[Record] = []
    gone: list[int] = []
    for wp, entries in zip(todo, activities, strict=True):
        if entries is None:
            gone.append(wp.id)
            continue
        closed = resolve_status_closed(wp, closed_by_status)
        records.append(work_package_record(wp, entries, status_closed=closed))
    await session.write(records)
    if gone:
        logger.info("%d work packages vanished while syncing; removing them", len(gone))
        await session.remove(KIND, gone)


async def fetch_work_packages(session: SyncSession, ids: Sequence[int]) -> set[int]:
    """Fetch and index the given work packages by id; returns the ids the server has."""
    found: set[int] = set()
    for start in range(0, len(ids), IDS_PER_REQUEST):
        chunk = ids[start : start + IDS_PER_REQUEST]
        query = session.client.work_packages([equals("id", chunk)], page_size=PAGE_SIZE)
        listed = await query.collect()
        found.update(wp.id for wp in listed)
        await index_work_packages(session, listed)
    return found


async def existing_work_package_ids(session: SyncSession, ids: Sequence[int]) -> set[int]:
    """Which of ``ids`` the server still shows (one trimmed request per 100 ids)."""
    found: set[int] = set()
    for start in range(0, len(ids), IDS_PER_REQUEST):
        chunk = ids[start : start + IDS_PER_REQUEST]
        query = session.client.work_packages(
            [equals("id", chunk)], page_size=PAGE_SIZE, select=("elements/id",)
        )
        found.update(wp.id for wp in await query.collect())
    return found


async def _activities(session: SyncSession, work_package_id: int) -> list[Activity] | None:
    try:
        return await session.client.work_package_activities(work_package_id)
    except NotFoundError:
        return None
