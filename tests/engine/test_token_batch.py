"""The rule table over a code matrix equals ``alternative_score`` token by token, bit for bit."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from rapidfuzz.distance import Levenshtein

from opindex.engine.token_batch import (
    MAX_PATTERN,
    batch_scores,
    code_matrix,
    code_points,
    contains_token,
    edit_distances,
)
from opindex.search.query import Alternative, alternative_score
from opindex.search.score import edit_budget

LETTERS = "abcdeßσüé日0"
WIDE = LETTERS + "\U0001f600"


def _matrix(tokens: list[str]) -> tuple[np.ndarray, np.ndarray]:
    joined = "\n" + "\n".join(tokens) + "\n"
    lengths = np.array([len(t) for t in tokens], dtype=np.int64)
    starts = np.cumsum(np.r_[1, lengths[:-1] + 1]).astype(np.int64)
    return code_matrix(code_points(joined), starts, lengths), lengths


@settings(max_examples=200, deadline=None)
@given(
    query=st.text(WIDE, min_size=1, max_size=MAX_PATTERN),
    tokens=st.lists(st.text(WIDE, min_size=1, max_size=70), min_size=1, max_size=30),
)
def test_edit_distances_are_levenshteins(query: str, tokens: list[str]) -> None:
    matrix, lengths = _matrix(tokens)
    assert edit_distances(query, matrix, lengths).tolist() == [
        Levenshtein.distance(query, token) for token in tokens
    ]


def test_edit_distances_of_a_full_width_query() -> None:
    query = "ab" * 32
    tokens = [query, query[1:], "b" + query, query[:-3] + "xyz", "c" * 64, "a"]
    matrix, lengths = _matrix(tokens)
    assert edit_distances(query, matrix, lengths).tolist() == [
        Levenshtein.distance(query, token) for token in tokens
    ]


@settings(max_examples=300, deadline=None)
@given(
    query=st.text(LETTERS, min_size=1, max_size=12),
    tokens=st.lists(st.text(LETTERS, min_size=1, max_size=14), min_size=1, max_size=40),
    prefix=st.booleans(),
    data=st.data(),
)
def test_batch_scores_are_the_rule_tables(
    query: str, tokens: list[str], prefix: bool, data: st.DataObject
) -> None:
    # near variants of the query, so every rule (prefix, contains, typo, shared head) fires
    edits = st.lists(st.sampled_from(["", query, query[:-1], query + "a", "a" + query]))
    tokens = tokens + [t for t in data.draw(edits, label="variants") if t]
    matrix, lengths = _matrix(tokens)
    alternative = Alternative(query, prefix)
    found = batch_scores(query, prefix, matrix, lengths).tolist()
    expected = [alternative_score(alternative, token) for token in tokens]
    assert [score.hex() for score in found] == [score.hex() for score in expected]


def test_code_points_take_the_narrowest_dtype() -> None:
    assert code_points("abc").dtype == np.uint8
    assert code_points("straße").dtype == np.uint8
    assert code_points("σ").dtype == np.uint16
    assert code_points("\U0001f600").tolist() == [0x1F600]


@settings(max_examples=200, deadline=None)
@given(
    query=st.text(LETTERS, min_size=1, max_size=12),
    tokens=st.lists(st.text(LETTERS, min_size=1, max_size=14), min_size=1, max_size=40),
    prefix=st.booleans(),
)
def test_batch_scores_from_known_distances_and_containment_read_only_the_head(
    query: str, tokens: list[str], prefix: bool
) -> None:
    tokens = [*tokens, query, query[:-1], query + "a", "a" + query, "ab" + query[1:]]
    tokens = [t for t in tokens if t]
    joined = "\n" + "\n".join(tokens) + "\n"
    lengths = np.array([len(t) for t in tokens], dtype=np.int64)
    starts = np.cumsum(np.r_[1, lengths[:-1] + 1]).astype(np.int64)
    head = code_matrix(code_points(joined), starts, np.minimum(lengths, len(query)))
    assert head.shape[1] <= len(query)
    budget = edit_budget(query)
    distances = np.array(
        [min(Levenshtein.distance(query, t), budget + 1 + i % 3) for i, t in enumerate(tokens)]
    )
    whole, _ = _matrix(tokens)
    contains = contains_token(query, whole)
    assert contains.tolist() == [query in token for token in tokens]
    found = batch_scores(query, prefix, head, lengths, distances, contains).tolist()
    expected = [alternative_score(Alternative(query, prefix), token) for token in tokens]
    assert [score.hex() for score in found] == [score.hex() for score in expected]
