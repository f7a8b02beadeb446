"""Live two-phase search straight from OpenProject: list, bounded enrichment, re-rank."""

from opindex.live.activities import ActivityListing, list_activities
from opindex.live.live_session import LiveSearcher, LiveSession
from opindex.live.outcome import CandidateSet, LiveHit, LiveOutcome
from opindex.live.pipeline import (
    DEFAULT_CONCURRENCY,
    DEFAULT_ENRICH_LIMIT,
    EnrichmentBudget,
    EnrichmentMemo,
    PipelineResult,
    two_phase_search,
)
from opindex.live.wikis import WikiDirectoryCache, WikiDiscoverySettings, tenant_cache_key
from opindex.live.work_packages import caller_filters

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
