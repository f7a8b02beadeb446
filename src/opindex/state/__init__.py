"""Per-tenant SQLite state (sync runs, cursors, known ids, index pointer) and sync lock.

See :mod:`opindex.state.store` for the commit protocol that keeps the index and the state
consistent, and :mod:`opindex.state.lock` for the per-tenant sync lock.
"""

from opindex.state.connection import DEFAULT_BUSY_TIMEOUT_SECONDS, IntegrityCheck
from opindex.state.extraction_records import ExtractionRow
from opindex.state.lock import LockHolder, is_locked, lock_holder, tenant_lock
from opindex.state.paths import (
    ensure_private_directory,
    ensure_tenant_directory,
    is_valid_tenant_name,
    lock_file_path,
    move_aside,
    state_db_path,
    tenant_directory,
)
from opindex.state.progress_records import BackgroundFailure, Checkpoint, ManifestSummary
from opindex.state.state_values import (
    RUN_KINDS,
    Capabilities,
    CommitAgreement,
    IndexPointer,
    KindCounts,
    KnownRecord,
    RecordVersion,
    RunKind,
    RunOutcome,
    SyncRun,
    WikiDiscovery,
    WikiProbeRange,
    compare_commit,
    utc_now,
)
from opindex.state.store import StateStore

__all__ = [
    "DEFAULT_BUSY_TIMEOUT_SECONDS",
    "RUN_KINDS",
    "BackgroundFailure",
    "Capabilities",
    "Checkpoint",
    "CommitAgreement",
    "ExtractionRow",
    "IndexPointer",
    "IntegrityCheck",
    "KindCounts",
    "KnownRecord",
    "LockHolder",
    "ManifestSummary",
    "RecordVersion",
    "RunKind",
    "RunOutcome",
    "StateStore",
    "SyncRun",
    "WikiDiscovery",
    "WikiProbeRange",
    "compare_commit",
    "ensure_private_directory",
    "ensure_tenant_directory",
    "is_locked",
    "is_valid_tenant_name",
    "lock_file_path",
    "lock_holder",
    "move_aside",
    "state_db_path",
    "tenant_directory",
    "tenant_lock",
    "utc_now",
]
