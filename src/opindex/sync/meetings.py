"""Meetings: list all, re-read agenda items only of new or changed ones, drop vanished ones.

Released servers have no "changed since" filter for meetings, so every run lists them
all (largest pages; a handful of requests) and compares ``updatedAt`` with the indexed
version. Agenda items (17.4+) with their outcomes (17.6+) are fetched per changed meeting.
A meeting missing from the listing is removed once a direct fetch answers 404.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence

from opindex.errors import NotFoundError
from opindex.openproject import AgendaItem, Meeting
from opindex.record_builders import meeting_record
from opindex.records import Record
from opindex.search import Kind
from opindex.sync.sync_session import SyncSession

logger = logging.getLogger(__name__)

KIND: Kind = "meeting"
PAGE_SIZE = 1000


class _Gone:
    """Marker: the meeting disappeared while it was being read."""


_GONE = _Gone()
AgendaResult = tuple[AgendaItem, ...] | None | _Gone


async def sync_meetings(session: SyncSession) -> None:
    """Bring the indexed meetings in line with the server's list."""
    if not session.capabilities.meetings:
        # The server has no meetings API (any more): nothing of this kind can be shown.
        indexed = await asyncio.to_thread(session.index.all_ids, KIND)
        await session.remove(KIND, [*indexed, *session.known_of(KIND)])
        return
    listed = await session.client.meetings(page_size=PAGE_SIZE).collect()
    await index_meetings(session, listed)
    await _remove_vanished(session, {meeting.id for meeting in listed})


async def index_meetings(session: SyncSession, listed: Sequence[Meeting]) -> None:
    """Index the listed meetings that are new or changed, with their agenda items."""
    known = session.known_of(KIND)
    todo: list[Meeting] = []
    unchanged: list[int] = []
    for meeting in listed:
        entry = known.get(meeting.id)
        same = (
            entry is not None
            and entry.updated_at is not None
            and entry.updated_at == meeting.updated_at
        )
        if same and session.trust_known and not session.full:
            unchanged.append(meeting.id)
        else:
            todo.append(meeting)
    session.changes.still_exists(KIND, unchanged)
    if not todo:
        return
    agendas = await session.bounded(todo, lambda meeting: _agenda(session, meeting.id))
    records: list[Record] = []
    gone: list[int] = []
    for meeting, agenda in zip(todo, agendas, strict=True):
        if isinstance(agenda, _Gone):
            gone.append(meeting.id)
        else:
            records.append(meeting_record(meeting, agenda))
    await session.write(records)
    await session.remove(KIND, gone)


async def _agenda(session: SyncSession, meeting_id: int) -> AgendaResult:
    capabilities = session.capabilities
    if capabilities.meeting_agenda_items is False:
        return None
    try:
        items = await session.client.meeting_agenda_items(
            meeting_id, fetch_outcomes=capabilities.meeting_outcomes is not False
        )
    except NotFoundError:
        # Either the meeting is gone, or this server has no agenda items endpoint.
        try:
            await session.client.meeting(meeting_id)
        except NotFoundError:
            return _GONE
        return None
    return tuple(items)


async def _remove_vanished(session: SyncSession, listed: set[int]) -> None:
    indexed = set(await asyncio.to_thread(session.index.all_ids, KIND))
    candidates = sorted((indexed | set(session.known_of(KIND))) - listed)
    if not candidates:
        return
    found = await session.bounded(candidates, lambda meeting_id: _still_there(session, meeting_id))
    survivors = [meeting for meeting in found if meeting is not None]
    if survivors:
        logger.info("%d meetings missing from the listing still exist", len(survivors))
        await index_meetings(session, survivors)
    alive = {meeting.id for meeting in survivors}
    await session.remove(KIND, [meeting_id for meeting_id in candidates if meeting_id not in alive])


async def _still_there(session: SyncSession, meeting_id: int) -> Meeting | None:
    try:
        return await session.client.meeting(meeting_id)
    except NotFoundError:
        return None
