"""Query parsing: terms, alternatives, stop words, containment, rendering."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from opindex.errors import InvalidArgumentError
from opindex.search.query import (
    MAX_TERMS,
    Alternative,
    Query,
    Term,
    alternative_score,
    parse_query,
    render_query,
)
from opindex.search.score import score_token


def tokens(query: Query) -> list[str]:
    return [render_query(Query("", (term,), "fuzzy", False)) for term in query.terms]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("budget aproval", ["budget", "aproval"]),
        ("What did we decide about hiring?", ["decide", "hiring"]),
        ("approval of the budget", ["approval", "budget"]),
        ("the of and", ["the", "of", "and"]),  # nothing but stop words: kept
        ("Budget budget BUDGET", ["budget"]),  # duplicates collapse
        ("async* pool*", ["async*", "pool*"]),
        ("foo*bar", ["foo*", "bar"]),
        ("(bug|defect) report", ["(bug|defect)", "report"]),
        ("(bug | defect* | Bug) report", ["(bug|defect*)", "report"]),
        ("(draft) notes", ["draft", "notes"]),  # parentheses without | are just punctuation
        ("Müller-Lüdenscheid", ["muller", "ludenscheid"]),
        ("the*", ["the*"]),  # a wildcard is never a stop word
    ],
)
def test_parse_terms(text: str, expected: list[str]) -> None:
    assert tokens(parse_query(text)) == expected


def test_query_keeps_the_text_as_written() -> None:
    query = parse_query("  Budget Approval ")
    assert query.text == "  Budget Approval "
    assert query.match_mode == "fuzzy"
    assert query.terms == (Term((Alternative("budget"),)), Term((Alternative("approval"),)))


@pytest.mark.parametrize(
    ("text", "mode", "containment"),
    [
        ("budget", "fuzzy", False),
        ("Q3", "fuzzy", True),
        (" ab ", "fuzzy", True),
        ("abc", "fuzzy", False),
        ("!!!", "fuzzy", True),  # no letters or digits: nothing to score fuzzily
        ("", "fuzzy", False),  # empty: every record, unranked
        ("   ", "fuzzy", False),
        ("budget approval", "exact", True),
        ("", "exact", True),
    ],
)
def test_containment(text: str, mode: str, containment: bool) -> None:
    assert parse_query(text, mode).containment is containment  # type: ignore[arg-type]


@pytest.mark.parametrize("mode", ["FUZZY", "regex", "", None])
def test_unknown_match_mode_is_rejected(mode: object) -> None:
    with pytest.raises(InvalidArgumentError, match="match mode"):
        parse_query("budget", mode)  # type: ignore[arg-type]


def test_non_string_query_is_rejected() -> None:
    with pytest.raises(InvalidArgumentError, match="query must be a string"):
        parse_query(42)  # type: ignore[arg-type]


def test_terms_are_capped() -> None:
    text = " ".join(f"word{i}" for i in range(200))
    query = parse_query(text)
    assert len(query.terms) == MAX_TERMS
    assert query.terms[0].alternatives[0].token == "word0"


@pytest.mark.parametrize(
    ("text", "rendered"),
    [
        ("async pool", "async pool"),
        ("Async* POOL*", "async* pool*"),
        ("(bug|defect) report", "(bug|defect) report"),
        ("what did we decide about hiring", "decide hiring"),
        ("", ""),
        ("Q3", "Q3"),  # containment renders literally
    ],
)
def test_render_query(text: str, rendered: str) -> None:
    assert render_query(parse_query(text)) == rendered


def test_render_exact_query_is_the_literal_text() -> None:
    assert render_query(parse_query("Approval of Q3", "exact")) == "Approval of Q3"


def test_alternative_score() -> None:
    assert alternative_score(Alternative("budg", prefix=True), "budget") == 1.0
    assert alternative_score(Alternative("budg"), "budget") == 0.9
    assert alternative_score(Alternative("budgt"), "budget") == score_token("budgt", "budget")


@given(st.text(max_size=200))
def test_render_then_parse_gives_the_same_terms(text: str) -> None:
    query = parse_query(text)
    if query.containment:
        return
    again = parse_query(render_query(query))
    assert again.terms == query.terms
