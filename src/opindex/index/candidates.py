"""Running a candidate query: ordering, the cap, and what the cap reports."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Final

import tantivy

from opindex.index import schema as s
from opindex.index.fuzzy_clauses import field_terms_matched
from opindex.index.generation_index import hit_count
from opindex.index.substring_clauses import raw_contains
from opindex.records import Record

# Ranked candidates are re-sorted (score desc, id asc: the ranker's tie rule) over a
# window of this many times the limit, fetched as ids only (fast field, no decoding).
WINDOW_FACTOR: Final = 4
MAX_WINDOW: Final = 4_000

Decoder = Callable[[tantivy.DocAddress], Record]


class CandidateList(list[Record]):
    """Candidate records, best first, with what the cap left out.

    ``total``: documents matching the candidate query (before the cap).
    ``truncated``: some matching documents were left out by the cap (or, for a query
    without letters or digits, the scan budget ran out).
    ``excluded_max_terms``: fuzzy mode only, the most query terms that any left-out
    document matched within one field (None when nothing was left out). The ranker's raw
    score of a field matching m of n terms is at most 0.85 * (m / n)^2 when m < n, so a
    caller can tell whether the cap could have cut an acceptable record.
    """

    def __init__(
        self,
        records: Iterable[Record] = (),
        *,
        total: int = 0,
        truncated: bool = False,
        excluded_max_terms: int | None = None,
        ranked_terms: Sequence[int] = (),
    ) -> None:
        super().__init__(records)
        self.total = total
        self.truncated = truncated
        self.excluded_max_terms = excluded_max_terms
        self._ranked_terms = ranked_terms

    def matching_at_least(self, terms: int) -> int | None:
        """How many candidates in all match at least *terms* query terms within one field,
        when the search saw them all (fuzzy mode; None when unknown).

        The search looks beyond the cap (see WINDOW_FACTOR); candidates come best first by
        terms matched, so when one it looked at matches fewer, the count is exact.
        """
        ranked = self._ranked_terms
        count = next((i for i, matched in enumerate(ranked) if matched < terms), None)
        if count is not None:
            return count
        return len(ranked) if ranked and len(ranked) >= self.total else None


def _must(clauses: Sequence[tantivy.Query]) -> tantivy.Query:
    return tantivy.Query.boolean_query([(tantivy.Occur.Must, c) for c in clauses])


def run_ranked(
    searcher: tantivy.Searcher,
    query: tantivy.Query,
    filters: Sequence[tantivy.Query],
    limit: int,
    decode: Decoder,
) -> CandidateList:
    """The best *limit* documents of a fuzzy_query(), ties broken by ascending id."""
    window = max(limit + 1, min(limit * WINDOW_FACTOR, MAX_WINDOW))
    result = searcher.search(_must([query, *filters]), window, count=True)
    hits = result.hits
    ids = searcher.fast_field_values(s.ID, [address for _, address in hits])
    order = sorted(range(len(hits)), key=lambda i: (-hits[i][0], ids[i] or 0))
    total = hit_count(result)
    ranked_terms = [field_terms_matched(hits[i][0]) for i in order]
    excluded = ranked_terms[limit] if len(order) > limit else None
    return CandidateList(
        (decode(hits[i][1]) for i in order[:limit]),
        total=total,
        truncated=total > limit,
        excluded_max_terms=excluded,
        ranked_terms=ranked_terms,
    )


def run_by_id(
    searcher: tantivy.Searcher,
    query: tantivy.Query,
    filters: Sequence[tantivy.Query],
    limit: int,
    decode: Decoder,
) -> CandidateList:
    """The *limit* lowest-id documents matching *query* (for unscored candidates).

    The ranker orders records of equal score by ascending id, and containment scores
    are all 1, so the lowest ids are the ones it would show first.
    """
    result = searcher.search(
        _must([query, *filters]), limit, count=True, order_by_field=s.ID, order=tantivy.Order.Asc
    )
    return CandidateList(
        (decode(address) for _, address in result.hits),
        total=hit_count(result),
        truncated=hit_count(result) > limit,
    )


def run_scan(
    searcher: tantivy.Searcher,
    needle: str,
    filters: Sequence[tantivy.Query],
    limit: int,
    budget: int,
    decode: Decoder,
) -> CandidateList:
    """Records whose raw text contains *needle*, scanning at most *budget* records.

    For substring queries without letters or digits ("--", "#"), which no token can
    narrow down; records are scanned in ascending id order.
    """
    everything = _must([tantivy.Query.all_query(), *filters])
    result = searcher.search(
        everything, budget, count=True, order_by_field=s.ID, order=tantivy.Order.Asc
    )
    found = CandidateList(total=0, truncated=hit_count(result) > budget)
    for _, address in result.hits:
        record = decode(address)
        if raw_contains(record, needle):
            found.total += 1
            if len(found) < limit:
                found.append(record)
            else:
                found.truncated = True
    return found
