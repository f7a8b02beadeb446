"""Visible projects: indexed as records, and remembered so that a change in visibility is noticed.

Losing or gaining a project changes which records the account may see without changing
their ``updatedAt``, so an incremental walk cannot notice it; the runner sweeps at once.
"""

from __future__ import annotations

import asyncio

from opindex.record_builders import project_record
from opindex.sync.changes import PROJECT
from opindex.sync.sync_session import SyncSession


async def sync_projects(session: SyncSession) -> bool:
    """List and index the visible projects; True if the set differs from the previous run's."""
    listed = await session.client.projects().collect()
    known = set(session.known_of(PROJECT))
    visible = {project.id for project in listed}
    await session.write([project_record(project) for project in listed])
    indexed = set(await asyncio.to_thread(session.index.all_ids, PROJECT))
    await session.remove(PROJECT, (known | indexed) - visible)
    gained = visible - known
    return bool(known) and bool((known - visible) or gained)
