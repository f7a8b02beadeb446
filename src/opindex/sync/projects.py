"""Visible projects: indexed as records, and remembered so that a change in visibility is noticed.

Losing or gaining a project changes which records the account may see without changing
their ``updatedAt``, so an incremental walk cannot notice it; the runner sweeps at once.
"""

from __future__ import annotations

from opindex.record_builders import listed_records
from opindex.sync.changes import PROJECT
from opindex.sync.sync_session import SyncSession


async def sync_projects(session: SyncSession) -> bool:
    """List and index the visible projects; True if the set differs from the previous run's."""
    records = await listed_records(session.client, PROJECT)
    known = set(session.known_of(PROJECT))
    visible = {record.id for record in records}
    await session.write(records)
    await session.remove_unlisted(PROJECT, visible)
    return bool(known) and known != visible
