"""Resumable full syncs: commit a fresh generation in checkpoints, continue it after a kill.

A full sync into a fresh (unpublished) index generation commits that generation every
``every_records`` work packages or ``every_seconds`` seconds, whichever comes first, and
then stores in the state database which generation it is and which record versions it
holds (:class:`~opindex.state.progress_records.Checkpoint`). The live generation (or,
for a first sync, the live path) keeps answering searches meanwhile. When the run dies
(SIGKILL, a disconnect, a restart), the next run finds the checkpoint, reopens that
generation, and reads only what the checkpoint does not hold in its current version.
A crash between a generation commit and its checkpoint row costs only a re-read of the
records of that one commit (upserts are idempotent).

A checkpoint is continued only when every part of its generation agrees (ARCHITECTURE
invariant 6): Tantivy's commit, the analysis store's manifest and the recorded
checksums name the same opstamp, the files pass their checksums, and the generation
holds every work package the checkpoint row lists. Anything else (a kill between two
of those commits, say) discards the checkpoint and its generation with a logged
reason, and the run starts a fresh generation. A rebuild discards any checkpoint.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime

from opindex.errors import IndexUnavailableError
from opindex.index import IndexDirectory, TenantIndex
from opindex.state import Checkpoint, RecordVersion, RunKind, StateStore
from opindex.sync.changes import PendingChanges
from opindex.sync.plan import SyncPlan
from opindex.sync.resume_check import resume_problem
from opindex.sync.work_packages import KIND

logger = logging.getLogger(__name__)

CHECKPOINT_RECORDS = 500
"""Work packages read between two checkpoints of a full sync (at most)."""
CHECKPOINT_SECONDS = 30.0
"""Seconds between two checkpoints of a full sync (at most, checked after each chunk)."""


@dataclass(frozen=True, slots=True)
class Resume:
    """An unfinished full sync to continue: its checkpoint and the versions it holds."""

    checkpoint: Checkpoint
    versions: dict[int, RecordVersion]

    def plan(self) -> SyncPlan:
        """The plan of the run that continues it."""
        done = self.checkpoint
        reason = (
            f"resuming the unfinished {done.run_kind} sync into generation {done.generation} "
            f"from its checkpoint ({len(self.versions)} work packages already committed)"
        )
        run_kind: RunKind = "rebuild" if done.run_kind == "rebuild" else "full"
        return SyncPlan(run_kind, True, True, False, False, reason)


def find_resume(
    state: StateStore, directory: IndexDirectory, tenant: str, *, rebuild: bool = False
) -> Resume | None:
    """The checkpointed full sync to continue, if every part of its generation agrees and
    this run is no ``rebuild``; otherwise the checkpoint and its unpublished generation
    are dropped, and a warning says why."""
    checkpoint = state.get_checkpoint()
    if checkpoint is None:
        return None
    versions = state.checkpoint_records(KIND)
    problem = (
        "a rebuild starts from scratch"
        if rebuild
        else resume_problem(directory, checkpoint, versions.keys())
    )
    if problem is None:
        return Resume(checkpoint, versions)
    logger.warning(
        "%s: not resuming the unfinished %s sync into generation %s: %s; starting a "
        "fresh generation",
        tenant,
        checkpoint.run_kind,
        checkpoint.generation,
        problem,
    )
    state.clear_checkpoint()
    _discard_unpublished(directory, checkpoint.generation)
    return None


def _discard_unpublished(directory: IndexDirectory, name: str) -> None:
    """Remove the generation *name* of a dropped checkpoint unless it is live."""
    try:
        if name in directory.generations() and name != directory.current():
            directory.discard(name)
    except IndexUnavailableError as exc:  # CURRENT unreadable: leave it for cleanup()
        logger.warning("generation %s of a dropped checkpoint was left in place: %s", name, exc)


@dataclass
class Checkpointer:
    """Commits the fresh generation and stores a checkpoint when one is due."""

    state: StateStore
    index: TenantIndex
    changes: PendingChanges
    run_kind: str
    started_at: datetime
    clock: Callable[[], datetime]
    every_records: int = CHECKPOINT_RECORDS
    every_seconds: float = CHECKPOINT_SECONDS
    previous: Checkpoint | None = None
    _saved: dict[int, RecordVersion] = field(default_factory=dict)
    _done_at_last: int = 0
    _last_at: datetime | None = None
    count: int = 0

    def __post_init__(self) -> None:
        self._last_at = self.clock()
        if self.previous is not None:
            self.count = self.previous.checkpoints

    async def __call__(self, read: int, kept: int, listed: int) -> None:
        """This run has read ``read`` work packages into the generation (uncommitted),
        which also keeps ``kept`` from earlier checkpoints, of ``listed`` in all."""
        now = self.clock()
        elapsed = (now - self._last_at).total_seconds() if self._last_at else 0.0
        if read - self._done_at_last < self.every_records and elapsed < self.every_seconds:
            return
        versions = self.changes.versions.get(KIND, {})
        fresh = [v for wp_id, v in versions.items() if self._saved.get(wp_id) != v]
        await asyncio.to_thread(self.index.commit)
        self.count += 1
        checkpoint = Checkpoint(
            generation=self.index.generation,
            run_kind=self.run_kind,
            started_at=self.previous.started_at if self.previous else self.started_at,
            records_done=kept + read,
            records_total=listed,
            checkpoints=self.count,
            updated_at=now,
        )
        await asyncio.to_thread(self.state.save_checkpoint, checkpoint, KIND, fresh)
        self._saved.update((v.id, v) for v in fresh)
        self._done_at_last = read
        self._last_at = now
        logger.info(
            "checkpoint %d: %d work packages committed to generation %s",
            self.count,
            len(versions),
            checkpoint.generation,
        )
