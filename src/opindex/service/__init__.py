"""The application's one door: search (index or live), reads, status, sync and rebuild.

The edges (``cli``, ``mcp``, ``daemon``, ``webhooks``, ``demo``) import from here, from
``opindex.config`` and from the request/response types of ``opindex.envelope``, and
nothing deeper (docs/ARCHITECTURE.md, invariant 1). ``Service`` answers searches and reads
(see ``opindex.service.facade``); the syncer's tenant operations and the few pure helpers
the edges render with are exported here beside it.
"""

from typing import TYPE_CHECKING

from opindex.lazy_names import lazy_getattr
from opindex.record_builders import ATTACHMENT_META, COMMENT_META
from opindex.records import AttributeValue
from opindex.search import (
    KIND_KEYS,
    KIND_LABELS,
    KINDS,
    Kind,
    Query,
    match_spans,
    parse_query,
    token_texts,
)
from opindex.service.facade import CALLER_TENANT, Service
from opindex.service.named_filters import FilterNames
from opindex.service.operations import count_webhook, reach_tenant, record_background_outcome
from opindex.service.word_accounting import APPROXIMATE
from opindex.sync import Freshness

if TYPE_CHECKING:
    from opindex.sync import (
        VERIFY_BYTES_PER_SECOND,
        VERIFY_INTERVAL_SECONDS,
        NullProgress,
        Pacer,
        RefreshReport,
        SyncProgress,
        SyncReport,
        TenantStatus,
        TerminalProgress,
        rebuild_tenant,
        refresh_work_packages,
        sync_tenant,
        tenant_status,
        verify_live_generation,
    )

# The syncer's operations load on first use: ``opindex search`` never imports the syncer.
_HOMES = {
    "VERIFY_BYTES_PER_SECOND": "opindex.sync",
    "VERIFY_INTERVAL_SECONDS": "opindex.sync",
    "NullProgress": "opindex.sync",
    "Pacer": "opindex.sync",
    "RefreshReport": "opindex.sync",
    "SyncProgress": "opindex.sync",
    "SyncReport": "opindex.sync",
    "TenantStatus": "opindex.sync",
    "TerminalProgress": "opindex.sync",
    "rebuild_tenant": "opindex.sync",
    "refresh_work_packages": "opindex.sync",
    "sync_tenant": "opindex.sync",
    "tenant_status": "opindex.sync",
    "verify_live_generation": "opindex.sync",
}

__all__ = [
    "APPROXIMATE",
    "ATTACHMENT_META",
    "CALLER_TENANT",
    "COMMENT_META",
    "KINDS",
    "KIND_KEYS",
    "KIND_LABELS",
    "VERIFY_BYTES_PER_SECOND",
    "VERIFY_INTERVAL_SECONDS",
    "AttributeValue",
    "FilterNames",
    "Freshness",
    "Kind",
    "NullProgress",
    "Pacer",
    "Query",
    "RefreshReport",
    "Service",
    "SyncProgress",
    "SyncReport",
    "TenantStatus",
    "TerminalProgress",
    "count_webhook",
    "match_spans",
    "parse_query",
    "reach_tenant",
    "rebuild_tenant",
    "record_background_outcome",
    "refresh_work_packages",
    "sync_tenant",
    "tenant_status",
    "token_texts",
    "verify_live_generation",
]

__getattr__ = lazy_getattr(__name__, _HOMES, globals())
