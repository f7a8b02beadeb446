"""The index path: the analysis store ranks fuzzy queries, Tantivy serves the rest.

No API call happens here. A fuzzy query is scored over every record of the kind by the
analysis store (``IndexBackend.ranked_hits``, exact ``total``); only the returned records
are decoded, and their matching fields and snippets are built from the store's scores
with only the values reported analysed again (the same as ``rank_documents`` on them).
Containment (substring) queries and empty queries take Tantivy candidates in ascending id
order, re-ranked by ``rank_documents`` (the same function as the live path);
past MAX_CANDIDATES the answer says so in a note.
"""

from __future__ import annotations

from collections.abc import Sequence

from opindex.index import IndexBackend, IndexFilters
from opindex.records import Record
from opindex.search import (
    DEFAULT_MIN_SCORE,
    Kind,
    Query,
    describe_documents,
    rank_documents_counted,
)
from opindex.service.result_builder import ScoredHit

FIRST_WINDOW = 200
"""Candidates of the first full window (at least 4x the requested limit); a window a
quarter of that size is tried before it (``search_index``)."""
WINDOW_GROWTH = 4
MAX_CANDIDATES = 4_000
"""Most candidates ranked for one query (a query matching most of a huge tenant)."""


class HitList(list[ScoredHit]):
    """Ranked hits, best first, plus what the caller reports in the envelope meta.

    ``total``: records that passed the scorer (before the caller's limit).
    ``notes``: caveats worth telling the caller (e.g. the candidate cap was reached).
    """

    def __init__(
        self, hits: Sequence[ScoredHit] = (), *, total: int = 0, notes: Sequence[str] = ()
    ) -> None:
        super().__init__(hits)
        self.total = total
        self.notes = list(notes)


def _next_window(window: int, total: int) -> int:
    """Grow by WINDOW_GROWTH; take everything at once when that is at most twice as much."""
    grown = window * WINDOW_GROWTH
    return min(MAX_CANDIDATES, total if total <= 2 * grown else grown)


def _rank(
    candidates: Sequence[Record], query: Query, kind: Kind, limit: int
) -> tuple[list[ScoredHit], int]:
    """The best *limit* candidates by the shared scorer, and how many pass it in all."""
    by_id = {record.id: record for record in candidates}
    documents = [record.document for record in candidates]
    ranked, passing = rank_documents_counted(documents, query, kind, limit=limit)
    return [ScoredHit(by_id[item.record.id], item) for item in ranked], passing


def _search_analysed(
    index: IndexBackend, query: Query, kind: Kind, filters: IndexFilters, limit: int
) -> HitList:
    """A fuzzy query over the analysis store: every record scored, ``total`` exact.

    Only the returned records are decoded; their matching fields and snippets are what
    ``rank_documents`` gives them (ARCHITECTURE invariant 3), built from the store's
    scores with only the reported values analysed again (``IndexBackend.ranked_hits``).
    """
    found = index.ranked_hits(query, kind, filters, limit, min_score=DEFAULT_MIN_SCORE)
    entries = [(record.document, score, bests) for record, score, bests in found.hits]
    described = describe_documents(entries, kind, found.token_text)
    return HitList(
        [ScoredHit(hit[0], item) for hit, item in zip(found.hits, described, strict=True)],
        total=found.total,
    )


def search_index(
    index: IndexBackend,
    query: Query,
    kind: Kind,
    filters: IndexFilters,
    limit: int,
) -> HitList:
    """The best *limit* records of *kind* for *query* among the index's candidates.

    An empty fuzzy query lists records unscored, most recently updated first.
    ``HitList.total`` counts the records that passed the scorer.
    """
    if not query.containment and not query.terms:
        listed = index.candidates(query, kind, filters, limit)
        return HitList(_rank(listed, query, kind, limit)[0], total=listed.total)
    if not query.containment:
        return _search_analysed(index, query, kind, filters, limit)
    # Containment: candidates in ascending id order, all scoring 1; the window grows until
    # it holds every candidate or reaches MAX_CANDIDATES.
    window = max(FIRST_WINDOW, WINDOW_GROWTH * limit) // WINDOW_GROWTH
    notes: list[str] = []
    while True:
        candidates = index.candidates(query, kind, filters, window)
        hits, passing = _rank(candidates, query, kind, limit)
        if not candidates.truncated:
            return HitList(hits, total=passing)
        if window >= candidates.total:
            break
        if window >= MAX_CANDIDATES:
            notes.append(
                f"{candidates.total} records are candidates for this query; only the first "
                f"{window} were ranked"
            )
            break
        window = _next_window(window, candidates.total)
    if not notes:  # a raw substring scan ran out of its budget
        notes.append(f"the substring search read only {len(candidates)} of the matching records")
    return HitList(hits, total=passing, notes=notes)
