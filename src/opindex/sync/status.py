"""A tenant's index status: freshness, last run and error, documents, size, capabilities.

Read-only: never takes the sync lock and never creates a tenant directory, so it is
safe to call while a sync runs (the CLI ``status`` command, the MCP status tool, the
service's routing).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Literal

from opindex.config import TenantConfig
from opindex.disclosure import public_detail, public_run_error
from opindex.envelope import IndexState
from opindex.errors import IndexDamagedError, IndexUnavailableError, StateError
from opindex.index import TenantIndex, full_disk_note, reread_generation
from opindex.search import KIND_KEYS, KINDS
from opindex.state import (
    BackgroundFailure,
    Checkpoint,
    IntegrityCheck,
    LockHolder,
    ManifestSummary,
    StateStore,
    SyncRun,
    is_locked,
    lock_holder,
    state_db_path,
    utc_now,
)
from opindex.sync.locations import index_directory
from opindex.sync.resume_check import CHECKPOINTED_KIND, resume_problem

SWEEP_RESOURCE = "deletion_sweep"
"""High-water mark name holding when the last complete work-package listing began (runs
between two listings read only the recent pages; see :mod:`opindex.sync.manifest`). Kept
here, not beside the sweep, so that reading a tenant's status does not import the syncer."""


@dataclass(frozen=True, slots=True)
class Freshness:
    """How fresh a tenant's index is at one instant.

    ``state`` is ``missing`` when no successful sync ever completed (no index to read),
    ``fresh`` when the last successful sync is younger than the tenant's max staleness,
    ``stale`` otherwise (also when an index exists but its age cannot be read),
    ``damaged`` when the published index cannot be read (a file fails its checksum, or
    Tantivy cannot read it): there is none to answer from until a sync builds a new one.
    ``problem`` says, in words for the caller, what could not be read, if anything.
    """

    state: IndexState
    indexed_at: datetime | None = None
    age_seconds: float | None = None
    problem: str | None = None

    @property
    def has_index(self) -> bool:
        """True when an index exists to read, fresh or not."""
        return self.state not in ("missing", "damaged")


def assess_freshness(
    indexed_at: datetime | None, *, max_staleness: timedelta, now: datetime
) -> Freshness:
    """Classify an index by the time of its last successful sync (``None``: never synced)."""
    if indexed_at is None:
        return Freshness("missing")
    if indexed_at.tzinfo is None:
        indexed_at = indexed_at.replace(tzinfo=UTC)
    age = max(0.0, (now - indexed_at).total_seconds())
    state: IndexState = "fresh" if age < max_staleness.total_seconds() else "stale"
    return Freshness(state, indexed_at, age)


StatusState = Literal["fresh", "stale", "missing", "damaged", "syncing"]


@dataclass(frozen=True, slots=True)
class RunSummary:
    """The latest sync run, whatever its outcome."""

    id: int
    kind: str
    outcome: str
    started_at: datetime
    finished_at: datetime | None
    requests: int
    error: str | None

    @classmethod
    def of(cls, run: SyncRun) -> RunSummary:
        """Summarize a stored run."""
        return cls(
            run.id, run.kind, run.outcome, run.started_at, run.finished_at, run.requests, run.error
        )


@dataclass(frozen=True, slots=True)
class TenantStatus:
    """Everything ``opindex status`` shows about one tenant.

    ``state`` is ``syncing`` while a sync or rebuild holds the tenant's lock, otherwise
    the ``freshness``: ``fresh`` if the last successful sync finished less than
    ``max_staleness_seconds`` ago, ``stale`` if longer ago or of unknown age (the state
    database cannot be read, ``last_sync_at`` None), ``damaged`` if the published index
    cannot be read, ``missing`` if there is none. ``last_error`` is the reason of the
    latest run if that run failed.
    """

    tenant: str
    state: StatusState
    freshness: IndexState
    last_sync_at: datetime | None
    age_seconds: float | None
    max_staleness_seconds: int
    last_run: RunSummary | None
    last_error: str | None
    documents: Mapping[str, int]
    index_bytes: int | None
    generation: str | None
    capabilities: Mapping[str, Any] | None
    syncing: LockHolder | None = None
    problems: tuple[str, ...] = field(default=())
    public_problems: tuple[str, ...] = field(default=())
    """The problems as a remote client may read them (no paths, no library text)."""
    verified: tuple[str, ...] = field(default=())
    """What ``verify=True`` checked and found sound (one line each)."""
    manifest: ManifestSummary | None = None
    whole_listing_at: datetime | None = None
    """When the last run that listed every work package began (others read recent pages)."""
    webhooks: Mapping[str, int] = field(default_factory=dict)
    checkpoint: Checkpoint | None = None
    attachments: Mapping[str, Any] = field(default_factory=dict)
    """How the attached files' text was read: files by outcome and reason, per format."""
    checkpoint_problem: str | None = None
    """Why the next sync will not resume ``checkpoint`` but discard it (None: it resumes
    it, or a sync holding the lock is writing it now)."""

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict (timestamps as ISO 8601 UTC strings)."""
        run = self.last_run
        return {
            "tenant": self.tenant,
            "state": self.state,
            "freshness": self.freshness,
            "last_sync_at": _iso(self.last_sync_at),
            "age_seconds": None if self.age_seconds is None else round(self.age_seconds, 3),
            "max_staleness_seconds": self.max_staleness_seconds,
            "last_error": self.last_error,
            "last_run": None
            if run is None
            else {
                "id": run.id,
                "kind": run.kind,
                "outcome": run.outcome,
                "started_at": _iso(run.started_at),
                "finished_at": _iso(run.finished_at),
                "requests": run.requests,
                "error": run.error,
            },
            "documents": dict(self.documents),
            "index_bytes": self.index_bytes,
            "generation": self.generation,
            "capabilities": None if self.capabilities is None else dict(self.capabilities),
            "syncing": None
            if self.syncing is None
            else {
                "pid": self.syncing.pid,
                "purpose": self.syncing.purpose,
                "since": _iso(self.syncing.since),
            },
            "problems": list(self.problems),
            "verified": list(self.verified),
            "manifest": _manifest_json(self.manifest, self.whole_listing_at),
            "webhooks": dict(self.webhooks),
            "full_sync_checkpoint": _checkpoint_json(self.checkpoint, self.checkpoint_problem),
            "attachments": dict(self.attachments),
        }


def tenant_status(
    tenant: TenantConfig,
    data_dir: Path,
    *,
    clock: Callable[[], datetime] = utc_now,
    verify: bool = False,
) -> TenantStatus:
    """The status of one tenant's index, computed from its state database, its index
    directory and its lock, at ``clock()``.

    Opening checks the state database (``PRAGMA quick_check``) and the live generation's
    files against their checksums; ``verify`` runs SQLite's full ``integrity_check``
    instead and lists what was found sound in ``verified``.
    """
    now = clock()
    problems: list[str] = []
    public: list[str] = []
    verified: list[str] = []
    last_success: SyncRun | None = None
    latest: SyncRun | None = None
    capabilities: Mapping[str, Any] | None = None
    manifest: ManifestSummary | None = None
    whole_listing_at: datetime | None = None
    webhooks: dict[str, int] = {}
    checkpoint: Checkpoint | None = None
    checkpoint_held: list[int] = []
    attachments: Mapping[str, Any] = {}
    state_unreadable = damaged = False
    database = state_db_path(data_dir, tenant.name)
    if database.is_file():
        check: IntegrityCheck = "full" if verify else "quick"
        try:
            with StateStore.for_tenant(data_dir, tenant.name, clock=clock, check=check) as state:
                last_success = state.last_successful_run()
                latest = state.latest_run()
                stored = state.get_capabilities()
                capabilities = dict(stored.data) if stored is not None else None
                manifest = state.get_manifest_summary()
                whole_listing_at = state.get_high_water(SWEEP_RESOURCE)
                webhooks = {name: c.count for name, c in state.webhook_counts().items()}
                attachments = state.extraction_summary()
                checkpoint = state.get_checkpoint()
                if checkpoint is not None:
                    checkpoint_held = list(state.checkpoint_records(CHECKPOINTED_KIND))
                for failure in state.background_failures():
                    problems.append(_background_problem(failure, failure.last_error))
                    public.append(
                        _background_problem(failure, public_run_error(failure.last_error))
                    )
            verified.append(f"state database {database}: passes SQLite's integrity_check")
        except StateError as exc:
            state_unreadable = True
            problems.append(f"state database: {exc}")
            public.append(f"state database: {public_detail(exc)}")

    documents = dict.fromkeys(KIND_KEYS.values(), 0)
    index_bytes: int | None = None
    generation: str | None = None
    has_index = False
    directory = index_directory(data_dir, tenant.name)
    try:
        if directory.current() is not None:
            with TenantIndex(directory) as index:
                stats = index.stats()
            has_index = True
            generation = stats.generation
            index_bytes = stats.bytes_on_disk
            for kind in KINDS:
                documents[KIND_KEYS[kind]] = int(stats.documents_per_kind.get(kind, 0))
            if verify:
                verified.append(_verify_files(directory.generation_path(stats.generation)))
    except IndexUnavailableError as exc:
        damaged = isinstance(exc, IndexDamagedError)
        problems.append(f"index: {exc}")
        public.append(f"index: {public_detail(exc)}")
    if last_success is not None and generation is None and not problems:
        problems.append(
            f"index: no index generation is published under {directory.root} although a "
            "sync succeeded (its files were removed?); the next sync or `opindex rebuild` "
            "builds a new one"
        )
        public.append(
            "index: no index generation is published although a sync succeeded; the next "
            "sync or `opindex rebuild` builds a new one"
        )

    last_sync_at = last_success.finished_at if last_success is not None else None
    assessed = assess_freshness(
        last_sync_at if has_index else None,
        max_staleness=timedelta(seconds=tenant.max_staleness_seconds),
        now=now,
    )
    freshness, age = assessed.state, assessed.age_seconds
    if damaged:
        freshness = "damaged"
    elif has_index and state_unreadable:  # an index to answer from, of unknown age
        freshness, age = "stale", None
    holder: LockHolder | None = None
    syncing = is_locked(data_dir, tenant.name)
    if syncing:
        holder = lock_holder(data_dir, tenant.name)
    checkpoint_problem = None
    if checkpoint is not None and not syncing:  # a running sync may be between two commits
        checkpoint_problem = resume_problem(directory, checkpoint, checkpoint_held)
    last_error = None
    if latest is not None and latest.outcome in ("failed", "interrupted"):
        last_error = latest.error or latest.outcome
    elif latest is not None and latest.outcome == "running" and not syncing:
        last_error = "interrupted: the process running the sync ended before it finished"
        last_error += full_disk_note(data_dir)
    return TenantStatus(
        tenant=tenant.name,
        state="syncing" if syncing else freshness,
        freshness=freshness,
        last_sync_at=last_sync_at,
        age_seconds=age,
        max_staleness_seconds=tenant.max_staleness_seconds,
        last_run=RunSummary.of(latest) if latest is not None else None,
        last_error=last_error,
        documents=documents,
        index_bytes=index_bytes,
        generation=generation,
        capabilities=capabilities,
        syncing=holder,
        problems=tuple(problems),
        public_problems=tuple(public),
        verified=tuple(verified) if verify else (),
        manifest=manifest,
        whole_listing_at=whole_listing_at,
        webhooks=webhooks,
        checkpoint=checkpoint,
        attachments=attachments,
        checkpoint_problem=checkpoint_problem,
    )


def _background_problem(failure: BackgroundFailure, error: str) -> str:
    times = "once" if failure.count == 1 else f"{failure.count} times"
    return (
        f"background {failure.task} failed {times} since its last success "
        f"(last at {_iso(failure.last_at)}): {error}"
    )


def _verify_files(path: Path) -> str:
    """Verify every file of the generation at *path* again; one line saying so."""
    found = reread_generation(path)
    if not found.recorded:
        return (
            f"index generation {path.name}: no checksums recorded yet (the next sync records them)"
        )
    return (
        f"index generation {path}: {found.files} files ({found.bytes} bytes) match the "
        "checksums of its last commit"
    )


def _iso(moment: datetime | None) -> str | None:
    return None if moment is None else moment.isoformat()


def _manifest_json(
    manifest: ManifestSummary | None, whole_listing_at: datetime | None
) -> dict[str, Any] | None:
    if manifest is None:
        return None
    return {
        "run_id": manifest.run_id,
        "finished_at": _iso(manifest.finished_at),
        "listed": manifest.listed,
        "added": manifest.added,
        "changed": manifest.changed,
        "removed": manifest.removed,
        "server_time": _iso(manifest.server_time),
        "whole_listing_at": _iso(whole_listing_at),
    }


def _checkpoint_json(checkpoint: Checkpoint | None, problem: str | None) -> dict[str, Any] | None:
    if checkpoint is None:
        return None
    return {
        "next_sync_resumes": problem is None,
        "discard_reason": problem,
        "generation": checkpoint.generation,
        "kind": checkpoint.run_kind,
        "started_at": _iso(checkpoint.started_at),
        "records_done": checkpoint.records_done,
        "records_total": checkpoint.records_total,
        "checkpoints": checkpoint.checkpoints,
        "updated_at": _iso(checkpoint.updated_at),
    }
