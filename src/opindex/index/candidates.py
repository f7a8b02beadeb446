"""Running a candidate query: ordering, the cap, and what the cap reports."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

import tantivy

from opindex.engine import raw_contains
from opindex.index import schema as s
from opindex.index.generation_index import hit_count
from opindex.index.index_filters import kind_query
from opindex.records import Record

Decoder = Callable[[tantivy.DocAddress], Record]


class CandidateList(list[Record]):
    """Candidate records, best first, with what the cap left out.

    ``total``: documents matching the candidate query (before the cap).
    ``truncated``: some matching documents were left out by the cap (or, for a query
    without letters or digits, the scan budget ran out).
    """

    def __init__(
        self, records: Iterable[Record] = (), *, total: int = 0, truncated: bool = False
    ) -> None:
        super().__init__(records)
        self.total = total
        self.truncated = truncated


def _must(clauses: Sequence[tantivy.Query]) -> tantivy.Query:
    return tantivy.Query.boolean_query([(tantivy.Occur.Must, c) for c in clauses])


def records_by_id(
    searcher: tantivy.Searcher,
    schema: tantivy.Schema,
    kind: str,
    ids: Sequence[int],
    decode: Decoder,
) -> list[Record]:
    """The stored records of *kind* with *ids* (ascending), in one search; an id Tantivy
    no longer holds (a commit in progress) is left out."""
    if not ids:
        return []
    query = _must([kind_query(schema, kind), tantivy.Query.term_set_query(schema, s.ID, ids)])
    result = searcher.search(query, len(ids), order_by_field=s.ID, order=tantivy.Order.Asc)
    return [decode(address) for _, address in result.hits]


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
