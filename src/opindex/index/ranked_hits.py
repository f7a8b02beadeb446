"""A fuzzy query's best records with their matching fields, from the analysis store."""

from __future__ import annotations

from dataclasses import dataclass

from opindex.index.generation_index import Snapshot, analysis_errors
from opindex.index.index_filters import IndexFilters
from opindex.records import Record
from opindex.search import (
    Kind,
    Query,
    Ranked,
    RecordBests,
    SearchDocument,
    describe_documents,
)


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


def described_hits(
    snap: Snapshot, request: HitRequest
) -> tuple[list[tuple[Record, Ranked[SearchDocument]]], int]:
    """The best records of *request* (read from the same snapshot), each
    with what ``rank_documents`` answers for it, and how many records pass the gate.

    The scores, each field's best value and the tokens its snippet centres on come from
    the analysis store (``AnalysisView.described``); the record's text is not tokenized
    again. A record the analysis names but Tantivy no longer holds (a commit in
    progress) is left out, as ``ranked_records`` does.
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
    described = describe_documents(
        [(record.document, score, bests) for record, score, bests in entries],
        request.kind,
        view.token_text,
    )
    return [(entry[0], item) for entry, item in zip(entries, described, strict=True)], total
