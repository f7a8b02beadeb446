"""The working context of one sync run: client, index, known records, pending changes."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TypeVar

from opindex.config import TenantConfig
from opindex.index import TenantIndex
from opindex.openproject import OpenProjectClient, ServerCapabilities, closed_status_ids
from opindex.records import Record
from opindex.search import Kind
from opindex.state import KnownRecord, RecordVersion
from opindex.sync.attachments import CONTAINER_KINDS, AttachmentReader, container_records
from opindex.sync.changes import KnownByKind, PendingChanges, content_hash
from opindex.sync.progress import NullProgress, SyncProgress

T = TypeVar("T")
R = TypeVar("R")

DEFAULT_CONCURRENCY = 8
"""Requests a sync keeps in flight at once (activities, agenda items, wiki probes)."""


@dataclass
class SyncSession:
    """Everything the per-kind steps of one run share.

    ``full``: re-read everything instead of what changed. ``trust_known``: the known
    records describe exactly what the index holds, so a record whose content hash is
    unchanged need not be written again (false while repairing a state/index mismatch
    or filling a fresh generation).
    """

    tenant: TenantConfig
    client: OpenProjectClient
    index: TenantIndex
    known: KnownByKind
    capabilities: ServerCapabilities
    started_at: datetime
    full: bool
    trust_known: bool
    progress: SyncProgress = field(default_factory=NullProgress)
    concurrency: int = DEFAULT_CONCURRENCY
    changes: PendingChanges = field(default_factory=PendingChanges)
    files: AttachmentReader | None = None
    """Reads the attached files of the records written (None: attachments are not read)."""
    _closed_by_status: dict[int, bool] | None = None
    _status_lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    def known_of(self, kind: str) -> dict[int, KnownRecord]:
        """Known records of ``kind`` by id (empty if none)."""
        return self.known.setdefault(kind, {})

    async def closed_by_status(self) -> dict[int, bool]:
        """Status id → closed, fetched once per run and only when first needed."""
        async with self._status_lock:
            if self._closed_by_status is None:
                self._closed_by_status = closed_status_ids(await self.client.statuses())
            return self._closed_by_status

    async def write(self, records: Sequence[Record]) -> int:
        """Upsert the records whose content changed; remember every version read.

        Returns how many were written to the index.
        """
        changed: list[Record] = []
        for record in records:
            kind = record.document.kind
            digest = content_hash(record)
            known = self.known_of(kind).get(record.id)
            unchanged = self.trust_known and known is not None and known.content_hash == digest
            if not unchanged:
                changed.append(record)
            version = RecordVersion(record.id, record.updated_at, digest)
            self.changes.fetched(kind, version, written=not unchanged)
        if changed and self.files is not None:
            changed = await self._with_files(changed)
        if changed:
            await asyncio.to_thread(self.index.upsert, changed)
        for kind in {record.document.kind for record in records}:
            self.progress.documents(kind, sum(1 for r in records if r.document.kind == kind))
        return len(changed)

    async def read_deferred_files(self) -> int:
        """Read again the files earlier runs deferred, with their containers; how many
        containers were written."""
        if self.files is None:
            return 0
        containers = await asyncio.to_thread(self.files.containers_with_deferred_files)
        if not containers:
            return 0
        written = await self._with_files(containers)
        await asyncio.to_thread(self.index.upsert, written)
        return len(containers)

    async def _with_files(self, records: list[Record]) -> list[Record]:
        """*records* with their attached files' text, followed by the files' own records;
        files a container no longer holds are removed."""
        assert self.files is not None
        reader = self.files
        containers = container_records(records)
        found = await self.bounded(containers, reader.files_of)
        enriched: dict[tuple[str, int], Record] = {}
        files: list[Record] = []
        dropped: set[int] = set()
        for container, result in zip(containers, found, strict=True):
            if result is None:
                continue
            with_files, container_files, gone = result
            enriched[(container.document.kind, container.id)] = with_files
            files.extend(container_files)
            dropped |= gone
        for file in files:
            version = RecordVersion(file.id, file.updated_at, content_hash(file))
            self.changes.fetched("attachment", version, written=True)
        await self.remove("attachment", dropped - {file.id for file in files})
        return [enriched.get((r.document.kind, r.id), r) for r in records] + files

    async def remove(self, kind: Kind, ids: Iterable[int]) -> int:
        """Delete records from the index (absent ids are harmless), with the attached
        files of removed containers."""
        doomed = sorted(set(ids))
        if doomed and self.files is not None and kind in CONTAINER_KINDS:
            files = await asyncio.to_thread(self.files.attachments_of_removed, kind, doomed)
            await self.remove("attachment", files)
        if doomed:
            await asyncio.to_thread(self.index.delete, kind, doomed)
            self.changes.removed(kind, doomed)
        return len(doomed)

    async def remove_unlisted(self, kind: Kind, listed: set[int]) -> int:
        """Remove the records of *kind* that a complete listing no longer shows (indexed
        or known: a record half-written by an earlier run goes too)."""
        indexed = set(await asyncio.to_thread(self.index.all_ids, kind))
        return await self.remove(kind, (indexed | set(self.known_of(kind))) - listed)

    async def bounded(self, items: Sequence[T], work: Callable[[T], Awaitable[R]]) -> list[R]:
        """Run ``work`` on every item with at most ``concurrency`` in flight; results
        in item order. The first failure cancels the rest and propagates."""
        semaphore = asyncio.Semaphore(self.concurrency)

        async def one(item: T) -> R:
            async with semaphore:
                return await work(item)

        try:
            async with asyncio.TaskGroup() as group:
                tasks = [group.create_task(one(item)) for item in items]
        except BaseExceptionGroup as failures:
            raise first_failure(failures) from None
        return [task.result() for task in tasks]


def first_failure(failures: BaseExceptionGroup[BaseException]) -> BaseException:
    """The first leaf error of a task group, so callers see the error type they expect."""
    first = failures.exceptions[0]
    while isinstance(first, BaseExceptionGroup):
        first = first.exceptions[0]
    return first
