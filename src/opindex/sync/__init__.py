"""Keeps each tenant's index current: full and incremental sync, deletions, rebuild, status."""

from opindex.sync.locations import index_directory, index_root
from opindex.sync.progress import NullProgress, SyncProgress, TerminalProgress
from opindex.sync.report import SyncReport
from opindex.sync.runner import rebuild_tenant, sync_tenant
from opindex.sync.status import RunSummary, TenantStatus, tenant_status

__all__ = [
    "NullProgress",
    "RunSummary",
    "SyncProgress",
    "SyncReport",
    "TenantStatus",
    "TerminalProgress",
    "index_directory",
    "index_root",
    "rebuild_tenant",
    "sync_tenant",
    "tenant_status",
]
