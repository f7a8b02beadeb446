"""Per-tenant Tantivy index: schema, generations, writer ownership, candidate retrieval."""

from opindex.engine import NO_FILTERS, IndexFilters, StatusSelection, Vocabulary, updated_timestamp
from opindex.index.backend import CommitInfo, IndexBackend, IndexStats, MatchedHits
from opindex.index.candidates import CandidateList
from opindex.index.checksums import Pace, mark_damaged, recorded_damage, verify_generation
from opindex.index.compaction import compacted
from opindex.index.generations import IndexDirectory, full_disk_note, generation_number
from opindex.index.reread import reread_generation
from opindex.index.schema import SCHEMA_VERSION
from opindex.index.tenant_index import DEFAULT_CANDIDATE_LIMIT, TenantIndex
from opindex.index.verification_record import VERIFY_INTERVAL_SECONDS

__all__ = [
    "DEFAULT_CANDIDATE_LIMIT",
    "NO_FILTERS",
    "SCHEMA_VERSION",
    "VERIFY_INTERVAL_SECONDS",
    "CandidateList",
    "CommitInfo",
    "IndexBackend",
    "IndexDirectory",
    "IndexFilters",
    "IndexStats",
    "MatchedHits",
    "Pace",
    "StatusSelection",
    "TenantIndex",
    "Vocabulary",
    "compacted",
    "full_disk_note",
    "generation_number",
    "mark_damaged",
    "recorded_damage",
    "reread_generation",
    "updated_timestamp",
    "verify_generation",
]
