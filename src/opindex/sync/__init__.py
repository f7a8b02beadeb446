"""Keeps each tenant's index current: full and incremental sync, deletions, rebuild, status.

The names below load their module on first use, so importing one light module of the
package (``opindex.sync.locations`` for an index path) does not import the syncer, the
OpenProject client and HTTP stack with it (``opindex search`` starts faster).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from opindex.lazy_names import lazy_getattr

if TYPE_CHECKING:
    from opindex.sync.locations import index_directory, index_root
    from opindex.sync.progress import NullProgress, SyncProgress, TerminalProgress
    from opindex.sync.report import SyncReport
    from opindex.sync.runner import rebuild_tenant, sync_tenant
    from opindex.sync.status import (
        Freshness,
        RunSummary,
        TenantStatus,
        assess_freshness,
        tenant_status,
    )
    from opindex.sync.targeted import RefreshReport, refresh_work_packages
    from opindex.sync.verification import (
        VERIFY_BYTES_PER_SECOND,
        VERIFY_INTERVAL_SECONDS,
        Pacer,
        verify_live_generation,
    )

_HOMES = {
    "index_directory": ".locations",
    "index_root": ".locations",
    "NullProgress": ".progress",
    "SyncProgress": ".progress",
    "TerminalProgress": ".progress",
    "SyncReport": ".report",
    "rebuild_tenant": ".runner",
    "sync_tenant": ".runner",
    "RunSummary": ".status",
    "Freshness": ".status",
    "assess_freshness": ".status",
    "TenantStatus": ".status",
    "tenant_status": ".status",
    "RefreshReport": ".targeted",
    "refresh_work_packages": ".targeted",
    "VERIFY_BYTES_PER_SECOND": ".verification",
    "VERIFY_INTERVAL_SECONDS": ".verification",
    "Pacer": ".verification",
    "verify_live_generation": ".verification",
}

__all__ = [
    "VERIFY_BYTES_PER_SECOND",
    "VERIFY_INTERVAL_SECONDS",
    "Freshness",
    "NullProgress",
    "Pacer",
    "RefreshReport",
    "RunSummary",
    "SyncProgress",
    "SyncReport",
    "TenantStatus",
    "TerminalProgress",
    "assess_freshness",
    "index_directory",
    "index_root",
    "rebuild_tenant",
    "refresh_work_packages",
    "sync_tenant",
    "tenant_status",
    "verify_live_generation",
]


__getattr__ = lazy_getattr(__name__, _HOMES, globals())
