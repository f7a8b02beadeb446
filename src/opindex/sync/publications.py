"""News, documents and versions: listed whole every run, written when changed, gone when unlisted.

These collections are small and their list endpoints return every field, so each run
reads them completely (a few requests) and the content hash decides what is written; a
record the listing no longer shows (deleted, or its project no longer visible) is removed.
A server without an endpoint (the module is disabled) holds nothing of that kind.
"""

from __future__ import annotations

from opindex.errors import NotFoundError
from opindex.record_builders import listed_records
from opindex.search import Kind
from opindex.sync.sync_session import SyncSession

PUBLICATIONS: tuple[Kind, ...] = ("news", "document", "version")


async def sync_publications(session: SyncSession) -> None:
    """Bring the indexed news, documents and versions in line with the server's lists."""
    for kind in PUBLICATIONS:
        try:
            records = await listed_records(session.client, kind)
        except NotFoundError:
            records = []  # no such endpoint on this server: nothing of the kind is visible
        await session.write(records)
        await session.remove_unlisted(kind, {record.id for record in records})
