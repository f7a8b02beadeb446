"""The index path: Tantivy candidates, re-ranked on stored content by the shared scorer.

No API call happens here. Candidates are a superset of what the scorer accepts
(ARCHITECTURE invariant 2); when the candidate cap cuts records that could still pass
the scorer's gate, the cap is raised until nothing rankable is left out (up to
MAX_CANDIDATES, beyond which the answer says so in a note).
"""

from __future__ import annotations

from collections.abc import Sequence

from opindex.index.filters import IndexFilters
from opindex.index.retrieval import CandidateList
from opindex.index.tenant_index import TenantIndex
from opindex.records import Record
from opindex.search.document import Kind
from opindex.search.fields import rank_documents
from opindex.search.match import BASE_SCALE, round_score
from opindex.search.query import Query, parse_query
from opindex.search.rank import DEFAULT_MIN_SCORE
from opindex.service.results import ScoredHit

FIRST_CANDIDATE_LIMIT = 400
"""Candidates fetched first; enough for nearly every query on a 100k-record tenant."""
CANDIDATE_GROWTH = 4
MAX_CANDIDATES = 20_000
"""Hard cap on candidates ranked for one query (a query matching most of a huge tenant)."""


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


LIST_ALL = parse_query("", "exact")
"""The empty substring: every record matches, newest first (an empty query's candidates)."""


def min_terms_to_pass(term_count: int, min_score: float = DEFAULT_MIN_SCORE) -> int:
    """The fewest matched query terms with which one field can reach the scorer's gate.

    A field covering m of n terms scores at most ``(m/n) * (m/n) * BASE_SCALE`` (each
    matched term at most 1.0; the phrase bonus needs every term). A record whose best
    candidate match covers fewer terms can never be returned, so a cap cutting only such
    records loses nothing.
    """
    for matched in range(1, term_count + 1):
        share = matched / term_count
        if round_score(share * share * BASE_SCALE) >= min_score:
            return matched
    return term_count


def _cap_is_safe(query: Query, candidates: CandidateList) -> bool:
    """True when the records the cap left out cannot be returned by the scorer."""
    if not candidates.truncated:
        return True
    if query.containment or candidates.excluded_max_terms is None:
        return False
    return candidates.excluded_max_terms < min_terms_to_pass(len(query.terms))


def fetch_candidates(
    index: TenantIndex, query: Query, kind: Kind, filters: IndexFilters
) -> tuple[CandidateList, list[str]]:
    """Candidates for *query*, growing the cap until what it cuts cannot matter."""
    shape = query if query.containment or query.terms else LIST_ALL
    limit = FIRST_CANDIDATE_LIMIT
    while True:
        candidates = index.candidates(shape, kind, filters, limit)
        if shape is not query:  # an empty query lists; nothing is scored
            return candidates, []
        if _cap_is_safe(query, candidates) or limit >= candidates.total:
            return candidates, []
        if limit >= MAX_CANDIDATES:
            note = (
                f"the query matches {candidates.total} candidate records; only the best "
                f"{limit} by matched terms were ranked"
            )
            return candidates, [note]
        limit = min(MAX_CANDIDATES, limit * CANDIDATE_GROWTH, max(candidates.total, 1))


def rank_candidates(records: Sequence[Record], query: Query, kind: Kind) -> list[ScoredHit]:
    """Every record the scorer accepts, best first, each with its Record."""
    by_id = {record.id: record for record in records}
    ranked = rank_documents((record.document for record in records), query, kind)
    return [ScoredHit(by_id[item.record.id], item) for item in ranked]


def search_index(
    index: TenantIndex, query: Query, kind: Kind, filters: IndexFilters, limit: int
) -> HitList:
    """The best *limit* records of *kind* for *query* among the index's candidates.

    An empty fuzzy query lists records, most recently updated first, unscored.
    """
    candidates, notes = fetch_candidates(index, query, kind, filters)
    hits = rank_candidates(candidates, query, kind)
    if not query.containment and not query.terms:
        return HitList(hits[:limit], total=candidates.total)
    if candidates.truncated and not notes:  # a raw substring scan ran out of budget
        notes.append(
            f"the substring search read only the {len(candidates)} most recently updated "
            "matching records"
        )
    return HitList(hits[:limit], total=len(hits), notes=notes)
