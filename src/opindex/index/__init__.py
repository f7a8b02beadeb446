"""Per-tenant Tantivy index: schema, generations, writer ownership, candidate retrieval."""

from opindex.index.backend import CommitInfo, IndexBackend, IndexStats
from opindex.index.candidates import CandidateList
from opindex.index.filters import NO_FILTERS, IndexFilters
from opindex.index.generations import IndexDirectory
from opindex.index.schema import SCHEMA_VERSION
from opindex.index.tenant_index import DEFAULT_CANDIDATE_LIMIT, TenantIndex
from opindex.index.vocabulary import Vocabulary

__all__ = [
    "DEFAULT_CANDIDATE_LIMIT",
    "NO_FILTERS",
    "SCHEMA_VERSION",
    "CandidateList",
    "CommitInfo",
    "IndexBackend",
    "IndexDirectory",
    "IndexFilters",
    "IndexStats",
    "TenantIndex",
    "Vocabulary",
]
