"""Work packages: a keyset walk in server ``updatedAt`` order, with their activities.

A plain offset walk over a list sorted by ``updatedAt`` skips rows when a record on an
earlier page changes during the walk (it moves to the end, the rest shift left by one).
The walk therefore restarts at page 1 with ``updatedAt >= <last value seen>`` after
every page that moved the cursor forward, and skips what it already read (same id and
same ``updatedAt``). Only a run of records sharing one second that fills a whole page
is continued by page offset. The filter is inclusive, so nothing between pages is lost.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncGenerator, Sequence
from dataclasses import dataclass
from datetime import datetime

from opindex.errors import NotFoundError
from opindex.openproject import (
    Activity,
    Filter,
    Page,
    SortBy,
    WorkPackage,
    equals,
    resolve_status_closed,
    updated_since,
)
from opindex.record_builders import work_package_record
from opindex.records import Record
from opindex.search.document import Kind
from opindex.sync.session import SyncSession

logger = logging.getLogger(__name__)

KIND: Kind = "work_package"
RESOURCE = "work_packages"
"""Name of the work-package high-water mark in the state database."""
PAGE_SIZE = 1000
"""Requested page size; the server clamps it to its maximum and says so."""
IDS_PER_REQUEST = 100
"""Ids per ``id =`` filter when fetching known ids directly."""
UPDATED_ASC: SortBy = (("updatedAt", "asc"), ("id", "asc"))
_UNSEEN = object()


@dataclass(frozen=True, slots=True)
class Walk:
    """What a walk listed: ``newest`` ``updatedAt`` (server clock, None if nothing was
    listed) and the ids of every work package listed."""

    newest: datetime | None
    listed: frozenset[int]


async def sync_work_packages(session: SyncSession, since: datetime | None) -> Walk:
    """Index every work package changed at or after ``since`` (all of them when None)."""
    processed: dict[int, object] = {}
    newest: datetime | None = None
    cursor = since
    while True:
        filters: list[Filter] = [updated_since(cursor)] if cursor is not None else []
        query = session.client.work_packages(filters, UPDATED_ASC, page_size=PAGE_SIZE)
        restart_from: datetime | None = None
        pages = query.pages()
        try:
            async for page in pages:
                batch = [
                    wp for wp in page.elements if processed.get(wp.id, _UNSEEN) != wp.updated_at
                ]
                await index_work_packages(session, batch)
                for wp in batch:
                    processed[wp.id] = wp.updated_at
                    if wp.updated_at is not None and (newest is None or wp.updated_at > newest):
                        newest = wp.updated_at
                if _is_last(page):
                    break
                last = page.elements[-1].updated_at if page.elements else None
                if last is not None and (cursor is None or _second(last) > _second(cursor)):
                    restart_from = last
                    break
                # A run of equal timestamps fills the page: continue by offset.
        finally:
            if isinstance(pages, AsyncGenerator):
                await pages.aclose()
        if restart_from is None:
            return Walk(newest, frozenset(processed))
        cursor = restart_from


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


def _is_last(page: Page[WorkPackage]) -> bool:
    raw = len(page.elements) + page.duplicates
    if page.page_size is not None and raw < page.page_size:
        return True
    return (
        page.total is not None
        and page.page_size is not None
        and (page.number * page.page_size >= page.total)
    )


def _second(moment: datetime) -> int:
    """Whole seconds since the epoch: filters are sent with second precision."""
    return int(moment.timestamp())
