"""Per-tenant SQLite state (sync runs, cursors, known ids, index pointer) and sync lock.

See :mod:`opindex.state.store` for the commit protocol that keeps the index and the state
consistent, and :mod:`opindex.state.lock` for the per-tenant sync lock.
"""

from opindex.state.connection import DEFAULT_BUSY_TIMEOUT_SECONDS
from opindex.state.lock import LockHolder, is_locked, lock_holder, tenant_lock
from opindex.state.models import (
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
)
from opindex.state.paths import (
    ensure_private_directory,
    ensure_tenant_directory,
    lock_file_path,
    state_db_path,
    tenant_directory,
)
from opindex.state.store import StateStore

__all__ = [
    "DEFAULT_BUSY_TIMEOUT_SECONDS",
    "RUN_KINDS",
    "Capabilities",
    "CommitAgreement",
    "IndexPointer",
    "KindCounts",
    "KnownRecord",
    "LockHolder",
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
    "lock_file_path",
    "lock_holder",
    "state_db_path",
    "tenant_directory",
    "tenant_lock",
]
