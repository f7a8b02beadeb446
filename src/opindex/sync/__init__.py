"""Keeps each tenant's index current: full and incremental sync, deletions, rebuild, status.

The names below load their module on first use, so importing one light module of the
package (``opindex.sync.locations`` for an index path) does not import the syncer, the
OpenProject client and HTTP stack with it (``opindex search`` starts faster).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from opindex.sync.locations import index_directory, index_root
    from opindex.sync.progress import NullProgress, SyncProgress, TerminalProgress
    from opindex.sync.report import SyncReport
    from opindex.sync.runner import rebuild_tenant, sync_tenant
    from opindex.sync.status import RunSummary, TenantStatus, tenant_status

_HOMES = {
    "index_directory": "locations",
    "index_root": "locations",
    "NullProgress": "progress",
    "SyncProgress": "progress",
    "TerminalProgress": "progress",
    "SyncReport": "report",
    "rebuild_tenant": "runner",
    "sync_tenant": "runner",
    "RunSummary": "status",
    "TenantStatus": "status",
    "tenant_status": "status",
}

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


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value
