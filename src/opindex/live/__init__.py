"""Live two-phase search straight from OpenProject: list, bounded enrichment, re-rank.

The searchers load on first use (with the API client and httpx); the outcome and pipeline
types are all that a search answered from the index needs (DECISIONS D159).
"""

from typing import TYPE_CHECKING

from opindex.lazy_names import lazy_getattr
from opindex.live.outcome import CandidateSet, LiveHit, LiveOutcome
from opindex.live.pipeline import (
    DEFAULT_CONCURRENCY,
    DEFAULT_ENRICH_LIMIT,
    EnrichmentBudget,
    EnrichmentMemo,
    PipelineResult,
    two_phase_search,
)

if TYPE_CHECKING:
    from opindex.live.activities import ActivityListing, list_activities
    from opindex.live.live_session import LiveSearcher, LiveSession
    from opindex.live.wikis import WikiDirectoryCache, WikiDiscoverySettings, tenant_cache_key
    from opindex.live.work_packages import caller_filters

_HOMES = {
    "ActivityListing": ".activities",
    "list_activities": ".activities",
    "LiveSearcher": ".live_session",
    "LiveSession": ".live_session",
    "WikiDirectoryCache": ".wikis",
    "WikiDiscoverySettings": ".wikis",
    "tenant_cache_key": ".wikis",
    "caller_filters": ".work_packages",
}

__all__ = [
    "DEFAULT_CONCURRENCY",
    "DEFAULT_ENRICH_LIMIT",
    "ActivityListing",
    "CandidateSet",
    "EnrichmentBudget",
    "EnrichmentMemo",
    "LiveHit",
    "LiveOutcome",
    "LiveSearcher",
    "LiveSession",
    "PipelineResult",
    "WikiDirectoryCache",
    "WikiDiscoverySettings",
    "caller_filters",
    "list_activities",
    "tenant_cache_key",
    "two_phase_search",
]

__getattr__ = lazy_getattr(__name__, _HOMES, globals())
