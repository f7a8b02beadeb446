"""Attached files: listed with the records a run writes, downloaded and their text extracted once.

When a run writes a record that can hold files (a work package, wiki page, meeting or
document), its attachment list is read; each file not seen before (attachments are
immutable: keyed by id and digest) is downloaded to a temporary file with the tenant's
credential and its text extracted in an isolated worker (``opindex.extract``), bounded per
file (size, pages, time, memory) and per run (files, bytes). The text becomes the
container's ``attachments`` field (a hit names the file) and an ``attachment`` record of
its own. A file that cannot be read is recorded with its reason, never fatal; an empty
file is ``empty``. One left over by the run's budget is ``deferred`` to the next run; one
whose download failed is ``deferred`` with reason ``download_failed`` and tried again only
once ``DOWNLOAD_RETRY_AFTER`` has passed or its digest changed (DECISIONS D194). Downloads
go to ``<tenant>/downloads``; a run sweeps what a killed one left there.
"""

from __future__ import annotations

import asyncio
import logging
import os
import shutil
import tempfile
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import get_args

from opindex.config import TenantConfig
from opindex.errors import NotFoundError, OpenProjectError
from opindex.extract import Extraction, ExtractionLimits, Extractor, Format, Outcome, Reason
from opindex.index import TenantIndex
from opindex.openproject import Attachment, ContainerKind, OpenProjectClient
from opindex.record_builders import attachment_names, attachment_record, with_attachments
from opindex.records import Record
from opindex.state import ExtractionRow, StateStore
from opindex.sync.changes import PendingChanges

logger = logging.getLogger(__name__)

CONTAINER_KINDS: frozenset[str] = frozenset(get_args(ContainerKind))
"""The kinds of record that can hold attached files."""
DEFERRED = "deferred"
"""The outcome of a file left for a later run (the run's budget spent, download failed)."""
DOWNLOAD_FAILED = "download_failed"
"""The reason of a file deferred because its download failed."""
DOWNLOAD_RETRY_AFTER = timedelta(hours=6)
"""A file whose download failed is not tried again before this has passed (unless its
digest changed): a broken file costs a request per six hours, not one per run."""
DOWNLOADS_DIR = "downloads"
"""The tenant sub-directory holding files being downloaded (one directory per file)."""
_PREFIX = "opindex-attachment-"


@dataclass(frozen=True, slots=True)
class Deferral:
    """A file left for a later run, and why (None: the run's budget was spent)."""

    reason: str | None = None


@dataclass(frozen=True, slots=True)
class RunBudget:
    """What one run may download and extract; files beyond it wait for the next run."""

    files: int = 500
    bytes: int = 512 * 1024 * 1024


@dataclass
class AttachmentReader:
    """Reads the files of the containers one run writes (see the module docstring).

    ``recorded`` reads stored extractions by id (the state database); the rows this run
    adds and the ids it drops wait in ``changes``, stored with the run's commit.
    """

    client: OpenProjectClient
    index: TenantIndex
    recorded: Callable[[Iterable[int]], Mapping[int, ExtractionRow]]
    clock: Callable[[], datetime]
    changes: PendingChanges
    deferred: Callable[[], list[int]] = list
    downloads: Path | None = None
    """Where files are downloaded (None: the system's temporary directory)."""
    limits: ExtractionLimits = field(default_factory=ExtractionLimits)
    budget: RunBudget = field(default_factory=RunBudget)
    downloaded_bytes: int = 0
    extracted_files: int = 0
    _extractor: Extractor | None = None
    _lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    def close(self) -> None:
        """Stop the extraction worker, if one was started."""
        if self._extractor is not None:
            self._extractor.close()
            self._extractor = None

    async def files_of(self, container: Record) -> tuple[Record, list[Record], set[int]] | None:
        """*container* with its files' text, a record per file, and the ids of files it no
        longer holds; None if the container is gone (its list answered 404)."""
        kind = container.document.kind
        try:
            listed = await self.client.attachments(kind, container.id)  # type: ignore[arg-type]
        except NotFoundError:
            return None
        previous = await asyncio.to_thread(self._previous_ids, kind, container.id)
        dropped = previous - {attachment.id for attachment in listed}
        known = await asyncio.to_thread(self.recorded, [a.id for a in listed])
        files = [
            await self._file(attachment, container, known.get(attachment.id))
            for attachment in listed
        ]
        return with_attachments(container, files), files, dropped

    def containers_with_deferred_files(self) -> list[Record]:
        """The indexed records holding files an earlier run deferred (read again now)."""
        found: dict[tuple[str, int], Record] = {}
        deferred = self.deferred()
        rows = self.recorded(deferred) if deferred else {}
        for attachment_id in deferred:
            row = rows.get(attachment_id)
            if row is not None and self._waiting(row):
                continue
            file = self.index.get("attachment", attachment_id)
            kind = file.attributes.get("container_kind") if file is not None else None
            container_id = file.attributes.get("container_id") if file is not None else None
            if not isinstance(kind, str) or not isinstance(container_id, int):
                continue
            container = self.index.get(kind, container_id)
            if container is not None:
                found[(kind, container_id)] = container
        return list(found.values())

    def attachments_of_removed(self, kind: str, ids: Iterable[int]) -> set[int]:
        """The file ids of containers about to be removed (read before they go)."""
        found: set[int] = set()
        for container_id in ids:
            found |= self._previous_ids(kind, container_id)
        return found

    def _previous_ids(self, kind: str, container_id: int) -> set[int]:
        record = self.index.get(kind, container_id)
        return set(attachment_names(record)) if record is not None else set()

    def _waiting(self, row: ExtractionRow) -> bool:
        """Whether a file whose download failed is still waiting out its back-off."""
        return (
            row.outcome == DEFERRED
            and row.reason == DOWNLOAD_FAILED
            and self.clock() - row.extracted_at < DOWNLOAD_RETRY_AFTER
        )

    async def _file(
        self, attachment: Attachment, container: Record, known: ExtractionRow | None
    ) -> Record:
        same = known is not None and known.digest == attachment.digest
        if known is not None and same and (known.outcome != DEFERRED or self._waiting(known)):
            stored = await asyncio.to_thread(self.index.get, "attachment", attachment.id)
            if stored is not None:
                return stored
            if known.outcome == DEFERRED:  # waiting: the record again, its row unchanged
                label = f"{DEFERRED}: {known.reason}"
                return attachment_record(attachment, None, container=container, extraction=label)
        extraction = await self._extract(attachment)
        if isinstance(extraction, Deferral):
            outcome, reason, text = DEFERRED, extraction.reason, None
            file_format, size, seconds = "unknown", 0, 0.0
        else:
            outcome = str(extraction.outcome)
            reason = None if extraction.reason is None else str(extraction.reason)
            readable = extraction.outcome in (Outcome.EXTRACTED, Outcome.TRUNCATED)
            text = extraction.text if readable else None
            file_format, size = str(extraction.format), extraction.size_bytes
            seconds = extraction.seconds
        self.changes.extractions.append(
            ExtractionRow(
                id=attachment.id,
                digest=attachment.digest,
                outcome=outcome,
                reason=reason,
                format=file_format,
                bytes=size,
                seconds=seconds,
                extracted_at=self.clock(),
            )
        )
        label = outcome if reason is None else f"{outcome}: {reason}"
        return attachment_record(attachment, text, container=container, extraction=label)

    async def _extract(self, attachment: Attachment) -> Extraction | Deferral:
        """The file's extraction, or why it waits for a later run."""
        size = attachment.file_size or 0
        if size > self.limits.max_bytes:
            return _skipped(Reason.TOO_LARGE, size)
        async with self._lock:  # one file at a time: the worker extracts serially anyway
            if (
                self.extracted_files >= self.budget.files
                or self.downloaded_bytes + size > self.budget.bytes
            ):
                return Deferral()
            if self.downloads is not None:
                self.downloads.mkdir(mode=0o700, exist_ok=True)
            prefix = f"{_PREFIX}{os.getpid()}-"
            with tempfile.TemporaryDirectory(prefix=prefix, dir=self.downloads) as directory:
                path = Path(directory) / "file"
                try:
                    with path.open("wb") as sink:
                        download = await self.client.download_attachment(
                            attachment.id, sink, self.limits.max_bytes
                        )
                except NotFoundError:
                    return _skipped(Reason.UNREADABLE, size)
                except OpenProjectError as error:
                    logger.warning("attachment %d: download failed: %s", attachment.id, error)
                    return Deferral(DOWNLOAD_FAILED)
                self.downloaded_bytes += download.size
                if not download.complete:
                    return _skipped(Reason.TOO_LARGE, max(size, download.size))
                self.extracted_files += 1
                if self._extractor is None:
                    self._extractor = Extractor(self.limits)
                return await self._extractor.extract(
                    path,
                    file_name=attachment.file_name,
                    content_type=attachment.content_type or download.content_type,
                )


def attachment_reader(
    tenant: TenantConfig,
    client: OpenProjectClient,
    index: TenantIndex,
    state: StateStore,
    clock: Callable[[], datetime],
    changes: PendingChanges,
    budget: RunBudget | None = None,
) -> AttachmentReader | None:
    """The reader of the files of what a run (or a webhook's re-fetch) writes; ``None``
    when the tenant leaves attached files unread."""
    if not tenant.read_attachments:
        return None
    downloads = state.path.parent / DOWNLOADS_DIR
    sweep_stale_downloads(downloads)
    return AttachmentReader(
        client,
        index,
        state.extractions,
        clock,
        changes,
        budget=budget or RunBudget(),
        deferred=state.deferred_extractions,
        downloads=downloads,
    )


def sweep_stale_downloads(directory: Path) -> list[str]:
    """Remove what a killed run left in *directory*: the download directories of processes
    no longer running (this process's own, of a concurrent reader, stay). Their names."""
    try:
        entries = list(directory.iterdir())
    except FileNotFoundError:
        return []
    removed = []
    for entry in entries:
        pid = _owner(entry.name)
        if pid is not None and (pid == os.getpid() or _running(pid)):
            continue
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry, ignore_errors=True)
        else:
            entry.unlink(missing_ok=True)
        removed.append(entry.name)
    if removed:
        logger.info("removed %d download(s) left by an interrupted run", len(removed))
    return removed


def _owner(name: str) -> int | None:
    """The pid in a download directory's name (None for any other name)."""
    number = name.removeprefix(_PREFIX).split("-", 1)[0]
    return int(number) if name.startswith(_PREFIX) and number.isdigit() else None


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _skipped(reason: Reason, size: int) -> Extraction:
    return Extraction(
        text="", outcome=Outcome.SKIPPED, reason=reason, format=Format.UNKNOWN, size_bytes=size
    )


def container_records(records: Sequence[Record]) -> list[Record]:
    """The records among *records* that can hold files."""
    return [record for record in records if record.document.kind in CONTAINER_KINDS]
