"""Candidates of the queries the scorer does not rank: containment, and no terms at all."""

from __future__ import annotations

import tantivy

from opindex.index.candidates import CandidateList, run_by_id, run_scan
from opindex.index.generation_index import Snapshot, tantivy_errors
from opindex.index.index_filters import IndexFilters, filter_clauses
from opindex.index.recency import run_by_recency
from opindex.index.substring_clauses import containment_needle, containment_query
from opindex.search import Query


def listed_candidates(
    snap: Snapshot,
    query: Query,
    kind: str,
    filters: IndexFilters,
    limit: int,
    scan_budget: int,
) -> CandidateList | None:
    """Containment (substring) queries in ascending id order like the ranker's ties;
    queries without terms (which the ranker answers with every record, in the order
    given) most recently updated first. ``None`` for a fuzzy query with terms: the
    analysis store ranks those."""
    schema = snap.generation.schema
    with tantivy_errors(snap.generation.path, "search"):
        clauses = filter_clauses(schema, kind, filters)
        if query.containment:
            needle = containment_needle(query)
            contained = containment_query(schema, snap.vocabulary, needle)
            if contained is None:
                return run_scan(snap.searcher, needle, clauses, limit, scan_budget, snap.record)
            return run_by_id(snap.searcher, contained, clauses, limit, snap.record)
        if not query.terms:
            everything = tantivy.Query.all_query()
            return run_by_recency(snap.searcher, everything, clauses, limit, snap.record)
    return None
