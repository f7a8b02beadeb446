"""Candidates of the queries the scorer does not rank: containment, and no terms at all."""

from __future__ import annotations

import tantivy

from opindex.engine import IndexFilters, Vocabulary, containment_needle, containment_tokens
from opindex.index.candidates import CandidateList, records_by_id, run_scan
from opindex.index.generation_index import Snapshot, analysis_errors, tantivy_errors
from opindex.index.index_filters import check_kind, filter_clauses
from opindex.index.recency import run_by_recency
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
            with analysis_errors(snap.generation.path):
                view = snap.generation.analysis.view()
                tokens = containment_tokens(Vocabulary(view.vocabulary), needle)
                if tokens is not None:
                    ids, total = view.holding_every(check_kind(kind), tokens, filters, limit)
            if tokens is None:
                return run_scan(snap.searcher, needle, clauses, limit, scan_budget, snap.record)
            found = records_by_id(snap.searcher, schema, kind, ids.tolist(), snap.record)
            return CandidateList(found, total=total, truncated=total > limit)
        if not query.terms:
            everything = tantivy.Query.all_query()
            return run_by_recency(snap.searcher, everything, clauses, limit, snap.record)
    return None
