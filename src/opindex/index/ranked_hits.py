"""A fuzzy query's best records with what each matched, from the text engine."""

from __future__ import annotations

from dataclasses import dataclass

from opindex.engine import IndexFilters
from opindex.index.backend import MatchedHits
from opindex.index.generation_index import Snapshot, analysis_errors
from opindex.records import Record
from opindex.search import Kind, Query, RecordBests


@dataclass(frozen=True, slots=True)
class HitRequest:
    """A fuzzy query with terms over one kind, as ``TenantIndex.ranked_hits`` takes it."""

    query: Query
    kind: Kind
    filters: IndexFilters
    limit: int
    min_score: float


def ranked_records(snap: Snapshot, request: HitRequest) -> tuple[list[Record], list[float], int]:
    """The best records of *request* from the same snapshot, their scores, and how many
    records pass the gate. A record the analysis names but Tantivy no longer holds (a
    commit in progress) is left out."""
    with analysis_errors(snap.generation.path):
        view = snap.generation.analysis.view()
        best, total = view.search(
            request.query, request.kind, request.filters, request.limit, request.min_score
        )
    records: list[Record] = []
    scores: list[float] = []
    for record_id, score in best:
        record = snap.record_by_id(request.kind, record_id)
        if record is not None:
            records.append(record)
            scores.append(score)
    return records, scores, total


def described_hits(snap: Snapshot, request: HitRequest) -> MatchedHits:
    """The best records of *request* (read from the same snapshot), each with its score
    and what it matched (``AnalysisView.described``: each field's best value and the
    tokens its snippet centres on; the record's text is not tokenized again), and how
    many records pass the gate. A record the analysis names but Tantivy no longer holds
    (a commit in progress) is left out, as ``ranked_records`` does.
    """
    with analysis_errors(snap.generation.path):
        view = snap.generation.analysis.view()
        best, total = view.described(
            request.query, request.kind, request.filters, request.limit, request.min_score
        )
    entries: list[tuple[Record, float, RecordBests]] = []
    for record_id, score, bests in best:
        record = snap.record_by_id(request.kind, record_id)
        if record is not None:
            entries.append((record, score, bests))
    return MatchedHits(entries, total, view.token_text)
