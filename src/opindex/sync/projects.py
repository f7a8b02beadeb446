"""Visible projects: remembered between runs so that a change in visibility is noticed.

Losing or gaining a project changes which records the account may see without changing
their ``updatedAt``, so an incremental walk cannot notice it; the runner sweeps at once.
"""

from __future__ import annotations

import hashlib

from opindex.state import RecordVersion
from opindex.sync.changes import PROJECT
from opindex.sync.sync_session import SyncSession


async def sync_projects(session: SyncSession) -> bool:
    """List the visible projects; True if the set differs from the previous run's."""
    listed = await session.client.projects().collect()
    known = session.known_of(PROJECT)
    visible = {project.id for project in listed}
    for project in listed:
        fingerprint = hashlib.sha256(f"{project.identifier}\n{project.name}".encode()).hexdigest()[
            :32
        ]
        version = RecordVersion(project.id, project.updated_at, fingerprint)
        session.changes.fetched(PROJECT, version, written=False)
    lost = set(known) - visible
    session.changes.removed(PROJECT, lost)
    gained = visible - set(known)
    return bool(known) and bool(lost or gained)
