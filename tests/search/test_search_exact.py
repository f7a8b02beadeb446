"""Exact mode reproduces legacy case-insensitive substring containment, byte for byte."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.support.search_corpus import CORPUS

from opindex.search.document import KINDS, Kind
from opindex.search.fields import FIELD_SPECS, rank_documents


def reference(kind: Kind, query: str) -> dict[int, set[str]]:
    """Legacy behaviour: record id -> fields with a value containing the query."""
    hits: dict[int, set[str]] = {}
    for doc in CORPUS[kind]:
        for spec in FIELD_SPECS[kind]:
            if any(query.lower() in v.text.lower() for v in doc.fields.get(spec.name, ())):
                hits.setdefault(doc.id, set()).add(spec.name)
    return hits


def actual(kind: Kind, query: str, min_score: float = 0.35) -> dict[int, set[str]]:
    ranked = rank_documents(CORPUS[kind], query, kind, match_mode="exact", min_score=min_score)
    return {r.record.id: {m.field for m in r.matches} for r in ranked}


def _substrings(kind: Kind) -> list[str]:
    """1- to 12-character slices at every 7th position of every fixture value, and more."""
    cases: set[str] = set()
    for doc in CORPUS[kind]:
        for values in doc.fields.values():
            for value in values:
                text = value.text
                cases.update(text[s : s + n] for s in range(0, len(text), 7) for n in (1, 2, 5, 12))
                cases.add(text.upper())
    return sorted(cases)


@pytest.mark.parametrize("kind", KINDS)
def test_exact_matches_reference_on_fixture_substrings(kind: Kind) -> None:
    queries = _substrings(kind)
    assert len(queries) > 50
    for query in queries:
        assert actual(kind, query) == reference(kind, query), query


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize(
    "query", ["", " ", "budget aproval", "BUDGET", "of q3", "ü", "u\u0308", "5%", "zzz"]
)
def test_exact_matches_reference_on_edge_queries(kind: Kind, query: str) -> None:
    assert actual(kind, query, min_score=1.0) == reference(kind, query)


@settings(max_examples=200)
@given(kind=st.sampled_from(KINDS), query=st.text(max_size=8))
def test_exact_matches_reference_on_arbitrary_queries(kind: Kind, query: str) -> None:
    assert actual(kind, query) == reference(kind, query)


def test_exact_scores_are_weights_of_the_best_containing_field() -> None:
    ranked = rank_documents(CORPUS["meeting"], "room 4b", "meeting", match_mode="exact")
    assert [(r.record.id, r.score) for r in ranked] == [(101, 0.33), (109, 0.33)]
    assert all(m.score == 1.0 for r in ranked for m in r.matches)
