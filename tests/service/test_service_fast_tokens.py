"""The fast tokenizer used at commit is the one tokenizer, token for token (invariant 1),
and counted ranking counts what the ranker returns."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from service_records import work_package

from opindex.search.analysis import analyze_document, fast_token_texts
from opindex.search.fields import rank_documents, rank_documents_counted
from opindex.search.query import MatchMode, parse_query
from opindex.search.tokenizer import token_texts

SAMPLES = (
    "",
    "Renew TLS certificate (v2) — due 2026-03-01",
    "Müller, Zürich: café ﬁnance ½ Straße",
    "Mu\u0308ller decomposed; Ørsted; Łukasz; İstanbul",
    "emoji🙂inside and dash‐word and under_score",
    "Arabic كِتَابٌ and Hindi हिन्दी and Thai ภาษาไทย",
    "ＦＵＬＬＷＩＤＴＨ ｔｅｘｔ ① ② ³",
)


def test_known_samples() -> None:
    for text in SAMPLES:
        assert fast_token_texts(text) == token_texts(text), text


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=80))
def test_any_unicode_text(text: str) -> None:
    assert fast_token_texts(text) == token_texts(text)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.characters(max_codepoint=0x7F), max_size=120))
def test_any_ascii_text(text: str) -> None:
    assert fast_token_texts(text) == token_texts(text)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(max_codepoint=0x24F), max_size=80))
def test_any_latin_text(text: str) -> None:
    assert fast_token_texts(text) == token_texts(text)


@pytest.mark.parametrize(
    "context", ["{c}", "ab{c}cd", "{c}{c}x", "Zu{c}\u0308rich", "{c}-{c}", "9{c}\u2014{c}"]
)
def test_every_latin_letter_alone_and_in_words(context: str) -> None:
    for code in range(0x80, 0x250):
        text = context.format(c=chr(code))
        assert fast_token_texts(text) == token_texts(text), (hex(code), text)


QUERIES = (
    "budget aproval",
    "budget",
    "numbers q3",
    "aproval of the q3 budget",
    "approv*",
    "(budget|numbers) approval",
    "zz",
    "Budget",
)


@pytest.mark.parametrize("text", QUERIES)
@pytest.mark.parametrize("match_mode", ["fuzzy", "exact"])
def test_counted_ranking_counts_what_the_ranker_returns(text: str, match_mode: MatchMode) -> None:
    records = [
        work_package(1, "Budget approval", "Q3 numbers"),
        work_package(2, "Approval", comments=[(5, "the budget was approved")]),
        work_package(3, "Unrelated", "numbers only"),
        work_package(4, "Q3 budget", "approval of the q3 budget is pending"),
        work_package(5, "Budgets", comments=[(6, "aproval"), (7, "zz top")]),
    ]
    query = parse_query(text, match_mode)
    documents = [analyze_document(r.document) for r in records]
    expected = rank_documents(documents, query, "work_package")
    for limit in (None, 1, 2):
        ranked, passing = rank_documents_counted(documents, query, "work_package", limit=limit)
        assert passing == len(expected)
        assert ranked == expected[:limit]
