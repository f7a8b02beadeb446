"""The index path: Tantivy candidates, re-ranked on stored content by the shared scorer.

No API call happens here. The index returns candidates best first by an estimate of the
scorer's score, capped; the candidates are re-ranked with ``rank_documents`` (the same
function as the live path). The cap grows until what it cut provably cannot change the
answer: either nothing cut can pass the scorer's gate, or nothing cut can reach the
scores of the results being returned (ARCHITECTURE invariant 2, checked by the oracle
test). Past MAX_CANDIDATES the answer says so in a note.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from opindex.index import CandidateList, IndexFilters, TenantIndex
from opindex.search.analysis import AnalyzedDocument
from opindex.search.document import Kind
from opindex.search.match import BASE_SCALE, round_score
from opindex.search.query import Query
from opindex.search.rank import DEFAULT_MIN_SCORE
from opindex.service.rerank import AnalysisCache, Reranker
from opindex.service.results import ScoredHit

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


def excluded_bound(term_count: int, excluded_terms: int) -> float:
    """Highest score (rounded as the ranker rounds) a record cut by the cap can reach.

    A cut record matches at most *excluded_terms* of *term_count* terms within one field;
    below all terms its raw field score is at most ``BASE_SCALE * (m/n)^2`` (the phrase
    bonus needs every term), and a weighted record score never exceeds the raw one.
    """
    if excluded_terms >= term_count:
        return 1.0
    share = excluded_terms / term_count
    return math.ceil(share * share * BASE_SCALE * 100) / 100


def _all_passing_ranked(query: Query, candidates: CandidateList) -> bool:
    """True when no record the cap cut could pass the scorer's gate."""
    if not candidates.truncated:
        return True
    excluded = candidates.excluded_max_terms
    if query.containment or excluded is None:
        return False
    return excluded < min_terms_to_pass(len(query.terms))


def _top_settled(
    query: Query, candidates: CandidateList, hits: list[ScoredHit], limit: int
) -> bool:
    """True when no record the cap cut could enter the best *limit* hits."""
    excluded = candidates.excluded_max_terms
    if query.containment or excluded is None or len(hits) < limit:
        return False
    return hits[limit - 1].ranked.score > excluded_bound(len(query.terms), excluded)


def _next_window(window: int, total: int) -> int:
    """Grow by WINDOW_GROWTH; take everything at once when that is at most twice as much."""
    grown = window * WINDOW_GROWTH
    return min(MAX_CANDIDATES, total if total <= 2 * grown else grown)


def _probe_window(window: int) -> int:
    """The smaller window tried before the first full *window*."""
    return window // WINDOW_GROWTH


def _grows_to_the_end(query: Query) -> bool:
    """True when only the end of the candidates (or the cap) can stop the window growing.

    With one fuzzy term, every candidate the cap cuts matches that term, so neither
    ``_all_passing_ranked`` nor ``_top_settled`` can hold while the cap cuts anything:
    the windows in between would be ranked for nothing.
    """
    return not query.containment and len(query.terms) == 1


def final_window(window: int, total: int) -> int:
    """The window a growing search reaches when only the end of *total* candidates or
    MAX_CANDIDATES stops it (the last of ``_next_window``'s steps from *window*)."""
    while window < total and window < MAX_CANDIDATES:
        window = _next_window(window, total)
    return window


def _settling_window(query: Query, candidates: CandidateList, window: int) -> int:
    """The window to rank next instead of *window*, the next one by the growth rule, when
    the last search (*candidates*) shows which window will stop the growth anyway.

    With one term, only the last window can (``_grows_to_the_end``). With more, a window
    holding every candidate that can pass the gate is complete, and any larger window
    holds the same passing records: when the search counted them (fewer than *window*),
    that many are enough, and the answer is the one *window* would give.
    """
    if _grows_to_the_end(query):
        return final_window(window, candidates.total)
    if query.containment:
        return window
    passable = candidates.matching_at_least(min_terms_to_pass(len(query.terms)))
    return passable if passable is not None and passable < window else window


def search_index(
    index: TenantIndex,
    query: Query,
    kind: Kind,
    filters: IndexFilters,
    limit: int,
    *,
    cache: AnalysisCache | None = None,
    scope: str = "",
    memo: dict[int, AnalyzedDocument] | None = None,
) -> HitList:
    """The best *limit* records of *kind* for *query* among the index's candidates.

    An empty fuzzy query lists records unscored, most recently updated first. *cache* (shared
    across searches, *scope* naming the tenant) spares re-analysing the same records, and
    *memo* shares analyses between the queries of one search (see ``Reranker``).
    ``HitList.total`` counts the records that passed the scorer among those ranked.
    """
    if not query.containment and not query.terms:
        listed = index.candidates(query, kind, filters, limit)
        return HitList(Reranker(query, kind).rank(listed, limit), total=listed.total)
    ranker = Reranker(query, kind, cache, scope, memo)
    window = max(FIRST_WINDOW, WINDOW_GROWTH * limit)
    # A smaller window first. When nothing it leaves out can pass the scorer's gate, the
    # first window would hold the same passing records: same hits, same count, no note.
    candidates = index.candidates(query, kind, filters, _probe_window(window))
    hits = ranker.rank(candidates, limit)
    if _all_passing_ranked(query, candidates):
        return HitList(hits, total=ranker.passing())
    window = _settling_window(query, candidates, window)
    notes: list[str] = []
    while True:
        candidates = index.candidates(query, kind, filters, window)
        hits = ranker.rank(candidates, limit)
        complete = _all_passing_ranked(query, candidates)
        if complete or _top_settled(query, candidates, hits, limit):
            break
        if window >= candidates.total:
            break
        if window >= MAX_CANDIDATES:
            notes.append(
                f"{candidates.total} records are candidates for this query; only the best "
                f"{window} by the index's estimate were ranked"
            )
            break
        window = _settling_window(query, candidates, _next_window(window, candidates.total))
    passing = ranker.passing()
    if not complete and not notes:
        if query.containment:  # a raw substring scan ran out of its budget
            notes.append(
                f"the substring search read only {len(candidates)} of the matching records"
            )
        else:
            notes.append(
                f"at least {passing} records match; ranking stopped where no further "
                "record could enter these results"
            )
    return HitList(hits, total=passing, notes=notes)
