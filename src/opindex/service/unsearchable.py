"""Queries not worth running: a fuzzy query with text but no letter or digit, answered empty.

``:`` or ``--`` matched by substring containment found every record holding the
character (186 work packages at score 1.00); the answer now says the query has nothing to
search and what to do instead.
"""

from __future__ import annotations

from opindex.envelope import SearchMeta, SearchRequest, SearchResponse
from opindex.sync import Freshness


def no_words(request: SearchRequest) -> bool:
    """A fuzzy query with text but no letter or digit (``:``, ``--``): nothing to match."""
    text = request.query
    return (
        request.match_mode == "fuzzy"
        and bool(text.strip())
        and not any(character.isalnum() for character in text)
    )


def unsearchable(tenant: str, request: SearchRequest, freshness: Freshness) -> SearchResponse:
    """The empty answer to a query without letters or digits, with the hint what to do."""
    meta = SearchMeta(
        tenant=tenant,
        kind=request.kind,
        source="index" if freshness.has_index else "live",
        index_state=freshness.state,
        indexed_at=freshness.indexed_at,
        age_seconds=freshness.age_seconds,
        original_query=request.query,
        effective_query="",
        match_mode=request.match_mode,
        sort=request.sort,
        notice=(
            f"The query {request.query.strip()!r} has no letters or digits, so it was not "
            "searched: search for words, use matchMode 'exact' to find these characters "
            "literally, or leave the query empty to list records newest first."
        ),
    )
    return SearchResponse(results=[], meta=meta)
