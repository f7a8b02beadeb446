"""News, documents and versions: listed whole every run, written when changed, gone when unlisted.

These collections are small and their list endpoints return every field, so each run
reads them completely (a few requests) and the content hash decides what is written; a
record the listing no longer shows (deleted, or its project no longer visible) is removed.
A server without an endpoint (the module is disabled) holds nothing of that kind.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence

from opindex.errors import NotFoundError
from opindex.openproject import OpenProjectClient
from opindex.record_builders import document_record, news_record, version_record
from opindex.records import Record
from opindex.search import Kind
from opindex.sync.sync_session import SyncSession

Listing = Callable[[OpenProjectClient], Awaitable[Sequence[Record]]]


async def _news(client: OpenProjectClient) -> list[Record]:
    return [news_record(item) for item in await client.news().collect()]


async def _documents(client: OpenProjectClient) -> list[Record]:
    return [document_record(item) for item in await client.documents().collect()]


async def _versions(client: OpenProjectClient) -> list[Record]:
    return [version_record(item) for item in await client.versions().collect()]


LISTINGS: tuple[tuple[Kind, Listing], ...] = (
    ("news", _news),
    ("document", _documents),
    ("version", _versions),
)


async def sync_publications(session: SyncSession) -> None:
    """Bring the indexed news, documents and versions in line with the server's lists."""
    for kind, listing in LISTINGS:
        try:
            records = list(await listing(session.client))
        except NotFoundError:
            records = []  # no such endpoint on this server: nothing of the kind is visible
        await session.write(records)
        await remove_unlisted(session, kind, {record.id for record in records})


async def remove_unlisted(session: SyncSession, kind: Kind, listed: set[int]) -> None:
    """Remove the records of *kind* a complete listing no longer shows."""
    indexed = set(await asyncio.to_thread(session.index.all_ids, kind))
    await session.remove(kind, (indexed | set(session.known_of(kind))) - listed)
