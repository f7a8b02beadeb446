"""The re-ranker's fast analysis is the one tokenizer, token for token (invariant 1)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from service_records import meeting, work_package

from opindex.search.analysis import AnalyzedDocument, analyze_document, fast_token_texts
from opindex.search.fields import rank_documents, rank_documents_counted
from opindex.search.query import MatchMode, parse_query
from opindex.search.tokenize import token_texts
from opindex.service.rerank import (
    AnalysisCache,
    Reranker,
    analyze_record,
)

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


def test_analysis_matches_the_search_package() -> None:
    record = meeting(3, "Zürich kick-off", agenda=[(30, "Budget ½", "Müller's notes")])
    assert analyze_record(record.document) == analyze_document(record.document)


def test_reranker_ranks_like_rank_documents() -> None:
    records = [
        work_package(1, "Budget approval", "Q3 numbers"),
        work_package(2, "Approval", comments=[(5, "the budget approval was given")]),
        work_package(3, "Unrelated"),
    ]
    query = parse_query("budget aproval")
    expected = rank_documents([r.document for r in records], query, "work_package")
    reranker = Reranker(query, "work_package")
    ranked = reranker.rank(records, 10)
    assert [(h.record.id, h.ranked.score, h.ranked.matches) for h in ranked] == [
        (r.record.id, r.score, r.matches) for r in expected
    ]
    assert all(hit.record is records[hit.record.id - 1] for hit in ranked)
    assert reranker.passing() == len(expected)
    top = reranker.rank(records, 1)
    assert [h.record.id for h in top] == [expected[0].record.id]
    assert reranker.passing() == len(expected)


def test_rerankers_sharing_a_memo_analyse_each_record_once() -> None:
    records = [work_package(1, "Budget approval", "Q3 numbers"), work_package(2, "Approval")]
    memo: dict[int, AnalyzedDocument] = {}
    first = Reranker(parse_query("budget aproval"), "work_package", memo=memo)
    first.rank(records, 10)
    analyses = dict(memo)
    second = Reranker(parse_query("budget"), "work_package", memo=memo)
    ranked = second.rank(records, 10)
    assert [h.record.id for h in ranked] == [1]
    assert all(memo[key] is analyses[key] for key in analyses)  # reused, not redone
    changed = work_package(1, "Budget approval", "Q4 numbers")  # another record object
    third = Reranker(parse_query("q4"), "work_package", memo=memo)
    assert [h.record.id for h in third.rank([changed], 10)] == [1]
    assert memo[1].document is changed.document


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
    documents = [analyze_record(r.document) for r in records]
    expected = rank_documents(documents, query, "work_package")
    for limit in (None, 1, 2):
        ranked, passing = rank_documents_counted(documents, query, "work_package", limit=limit)
        assert passing == len(expected)
        assert ranked == expected[:limit]


def test_analysis_cache_reuses_only_unchanged_documents() -> None:
    cache = AnalysisCache(token_budget=1_000)
    first = work_package(1, "Budget approval", "Q3 numbers")
    analyzed = cache.analyzed("acme", first.document)
    assert cache.analyzed("acme", first.document) is analyzed
    same_content = work_package(1, "Budget approval", "Q3 numbers")
    reused = cache.analyzed("acme", same_content.document)
    assert reused.fields is analyzed.fields  # not analysed again
    assert reused.document is same_content.document
    edited = work_package(1, "Budget approval", "Q4 numbers")
    fresh = cache.analyzed("acme", edited.document)
    assert fresh.fields is not analyzed.fields
    assert fresh.document is edited.document
    other_tenant = cache.analyzed("other", first.document)
    assert other_tenant.fields is not analyzed.fields  # tenants never share entries
    assert (cache.hits, cache.misses) == (2, 3)


def test_analysis_cache_stays_within_its_token_budget() -> None:
    cache = AnalysisCache(token_budget=40)
    documents = [
        work_package(i, f"subject {i}", "one two three four five six").document for i in range(20)
    ]
    for document in documents:
        cache.analyzed("acme", document)
    assert 0 < cache.size <= 40
    cache.analyzed("acme", documents[-1])  # the most recent entry survived
    assert cache.hits == 1
    cache.clear("acme")
    assert cache.size == 0
