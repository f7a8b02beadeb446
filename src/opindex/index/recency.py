"""Unscored candidates newest first: the listing an empty query answers with."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import tantivy

from opindex.index import schema as s
from opindex.index.candidates import CandidateList, Decoder
from opindex.index.generation_index import hit_count

TIE_MARGIN: Final = 64
"""Documents read beyond the limit so that equal update times can be ordered by id."""


def run_by_recency(
    searcher: tantivy.Searcher,
    query: tantivy.Query,
    filters: Sequence[tantivy.Query],
    limit: int,
    decode: Decoder,
) -> CandidateList:
    """The *limit* most recently updated documents matching *query* and *filters*.

    Ordered by update time, newest first, then by descending id: the order OpenProject's
    own listing (``sortBy [["updatedAt","desc"],["id","desc"]]``) gives the live path.
    Records with an unknown update time come last.
    """
    clauses = [(tantivy.Occur.Must, clause) for clause in (query, *filters)]
    result = searcher.search(
        tantivy.Query.boolean_query(clauses),
        limit + TIE_MARGIN,
        count=True,
        order_by_field=s.UPDATED_TS,
        order=tantivy.Order.Desc,
    )
    addresses = [address for _, address in result.hits]
    stamps = searcher.fast_field_values(s.UPDATED_TS, addresses)
    ids = searcher.fast_field_values(s.ID, addresses)
    order = sorted(range(len(addresses)), key=lambda i: (-(stamps[i] or 0), -(ids[i] or 0)))
    total = hit_count(result)
    return CandidateList(
        (decode(addresses[i]) for i in order[:limit]), total=total, truncated=total > limit
    )
