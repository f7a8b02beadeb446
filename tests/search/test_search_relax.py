"""Zero-hit relaxation: each strategy in isolation, the plan, and both orchestrators."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from tests.support.search_corpus import CORPUS, fuzzy_doc_freq

from opindex.search.document import SearchDocument
from opindex.search.fields import rank_documents
from opindex.search.query import Alternative, Query, parse_query, render_query
from opindex.search.rank import Ranked
from opindex.search.relax import (
    MAX_EXPANDED_TOKENS,
    concept_expansion,
    drop_term,
    relaxation_plan,
    wildcard_suffix,
)
from opindex.search.thesaurus import BUILTIN_THESAURUS
from opindex.service.relaxed_search import search_with_relaxation, search_with_relaxation_async

FREQUENCIES = {"async": 12, "db": 0, "pool": 7, "exhaustion": 0, "tokio": 3, "runtime": 5}
THESAURUS = {
    "bug": ["defect", "issue", "error", "fault"],
    "Meeting": ["sync", "stand-up", "standup", "call"],
    "hire": ["recruit"],
}


def freq(alternative: Alternative) -> int:
    return FREQUENCIES.get(alternative.token, 0)


def rendered(query: Query | None) -> str | None:
    return None if query is None else render_query(query)


# --- wildcard_suffix ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("async pool", "async* pool*"),
        ("async* pool", "async* pool*"),
        ("(bug|defect) report", "(bug*|defect*) report*"),
        ("async* pool*", None),
        ("", None),
    ],
)
def test_wildcard_suffix(text: str, expected: str | None) -> None:
    assert rendered(wildcard_suffix(parse_query(text))) == expected


def test_wildcard_keeps_text_and_mode() -> None:
    relaxed = wildcard_suffix(parse_query("async pool"))
    assert relaxed is not None
    assert (relaxed.text, relaxed.match_mode, relaxed.containment) == ("async pool", "fuzzy", False)


# --- drop_term ---------------------------------------------------------------------


def test_drop_term_drops_a_zero_frequency_term_first() -> None:
    query = parse_query("async DB pool exhaustion in tokio runtime")
    assert rendered(drop_term(query, freq)) == "async pool exhaustion tokio runtime"


def test_drop_term_picks_the_most_common_term() -> None:
    assert rendered(drop_term(parse_query("async pool tokio runtime"), freq)) == (
        "pool tokio runtime"
    )


def test_drop_term_keeps_a_misspelt_word_that_matches_fuzzily() -> None:
    # "onboardng" is in no record as written, but its typo matches count
    onboarding = fuzzy_doc_freq("wiki_page")
    assert onboarding(Alternative("onboardng")) == onboarding(Alternative("onboarding")) > 0
    frequencies = {"onboardng": 2, "checklist": 9}
    query = parse_query("onboardng checklist")
    assert rendered(drop_term(query, lambda a: frequencies[a.token])) == "onboardng"


def test_drop_term_breaks_ties_leftmost_and_without_frequencies_drops_the_first() -> None:
    assert rendered(drop_term(parse_query("db exhaustion pool"), freq)) == "exhaustion pool"
    assert rendered(drop_term(parse_query("tokio async pool"), None)) == "async pool"


def test_drop_term_uses_a_terms_most_frequent_alternative() -> None:
    query = parse_query("(db|async) tokio")
    assert rendered(drop_term(query, freq)) == "tokio"  # (db|async) counts as 12


def test_drop_term_returns_none_when_one_term_is_left() -> None:
    assert drop_term(parse_query("tokio"), freq) is None
    assert drop_term(parse_query(""), freq) is None


# --- concept_expansion -------------------------------------------------------------


def test_concept_expansion_adds_up_to_three_synonyms_per_term() -> None:
    query = parse_query("bug meeting notes")
    assert rendered(concept_expansion(query, THESAURUS)) == (
        "(bug|defect|issue|error) (meeting|sync|standup|call) notes"
    )


def test_concept_expansion_returns_none_when_nothing_is_known() -> None:
    assert concept_expansion(parse_query("quantum sockets"), THESAURUS) is None


def test_concept_expansion_caps_the_query_at_32_tokens() -> None:
    thesaurus = {f"w{i}": [f"a{i}", f"b{i}", f"c{i}", f"d{i}"] for i in range(20)}
    query = parse_query(" ".join(f"w{i}" for i in range(20)))
    expanded = concept_expansion(query, thesaurus)
    assert expanded is not None
    assert sum(len(t.alternatives) for t in expanded.terms) == MAX_EXPANDED_TOKENS
    assert len(expanded.terms) == 20


def test_builtin_thesaurus_covers_project_vocabulary() -> None:
    assert {"defect", "issue"} <= set(BUILTIN_THESAURUS["bug"])
    assert {"sync", "standup"} <= set(BUILTIN_THESAURUS["meeting"])
    assert "decision" in BUILTIN_THESAURUS["decide"]
    assert {"hiring", "recruit"} <= set(BUILTIN_THESAURUS["hire"])
    assert "cost" in BUILTIN_THESAURUS["budget"]
    assert {"deploy", "ship"} <= set(BUILTIN_THESAURUS["release"])
    assert len(BUILTIN_THESAURUS) >= 36
    for word, synonyms in BUILTIN_THESAURUS.items():
        assert word not in synonyms


# --- plan and orchestrators over the fixture corpus -----------------------------------


def test_plan_order() -> None:
    plan = relaxation_plan(
        parse_query("async db pool"), doc_freq=freq, thesaurus={"pool": ["queue"]}
    )
    assert [(s, render_query(q)) for s, q in plan] == [
        ("wildcard_suffix", "async* db* pool*"),
        ("drop_term", "async pool"),
        ("drop_term", "pool"),  # async, the more common, goes
        ("concept_expansion", "async db (pool|queue)"),
    ]


def test_containment_queries_are_never_relaxed() -> None:
    assert list(relaxation_plan(parse_query("budget report", "exact"))) == []
    assert list(relaxation_plan(parse_query("ci"))) == []


WPS = CORPUS["work_package"]
wp_freq = fuzzy_doc_freq("work_package")


def run_wp(query: Query) -> Sequence[Ranked[SearchDocument]]:
    return rank_documents(WPS, query, "work_package")


def ids(results: Sequence[Ranked[SearchDocument]]) -> list[int]:
    return [r.record.id for r in results]


def test_primary_hit_means_no_fallback() -> None:
    results, outcome = search_with_relaxation("async pool", run_wp, doc_freq=wp_freq)
    assert ids(results) == [204]
    assert outcome.strategy_used is None and not outcome.fallback_used
    assert (outcome.original_query, outcome.effective_query) == ("async pool", "async pool")
    assert outcome.results_added == 0


def test_zero_hit_phrase_falls_back_to_wildcard_suffix() -> None:
    assert run_wp(parse_query("ci pipelines")) == []
    results, outcome = search_with_relaxation("ci pipelines", run_wp, doc_freq=wp_freq)
    assert ids(results) == [206]
    assert outcome.strategy_used == "wildcard_suffix"
    assert outcome.effective_query == "ci* pipelines*"
    assert outcome.results_added == 1


def test_zero_hit_phrase_falls_back_to_drop_term() -> None:
    text = "async DB pool exhaustion in tokio runtime"
    results, outcome = search_with_relaxation(text, run_wp, doc_freq=wp_freq)
    assert outcome.strategy_used == "drop_term"
    assert outcome.original_query == text
    assert results and outcome.results_added == len(results)
    assert set(ids(results)) <= {201, 202, 204, 205}


def test_zero_hit_word_falls_back_to_concept_expansion() -> None:
    results, outcome = search_with_relaxation(
        "defect", run_wp, doc_freq=wp_freq, thesaurus=THESAURUS
    )
    assert outcome.strategy_used is None  # THESAURUS has no entry for "defect"
    results, outcome = search_with_relaxation(
        "defect", run_wp, doc_freq=wp_freq, thesaurus={"defect": ["bug"]}
    )
    assert outcome.strategy_used == "concept_expansion"
    assert outcome.effective_query == "(defect|bug)"
    assert ids(results) == [207]


def test_builtin_thesaurus_is_the_default() -> None:
    results, outcome = search_with_relaxation("defect", run_wp)
    assert outcome.strategy_used == "concept_expansion"
    assert ids(results) == [207]


def test_disabled_relaxation_returns_the_empty_primary_result() -> None:
    results, outcome = search_with_relaxation(
        "ci pipelines", run_wp, doc_freq=wp_freq, enabled=False
    )
    assert results == []
    assert outcome.strategy_used is None and outcome.results_added == 0


def test_nothing_helps() -> None:
    calls: list[str] = []

    def run(query: Query) -> list[int]:
        calls.append(render_query(query))
        return []

    results, outcome = search_with_relaxation("quantum sockets", run, doc_freq=lambda t: 0)
    assert results == [] and outcome.strategy_used is None
    assert outcome.effective_query == "quantum sockets"
    assert calls == ["quantum sockets", "quantum* sockets*", "sockets"]


def test_relaxation_never_lowers_min_score() -> None:
    def strict(query: Query) -> Sequence[Ranked[SearchDocument]]:
        return rank_documents(WPS, query, "work_package", min_score=0.95)

    # With the default threshold the wildcard rescues this query (see above); with a strict
    # one every relaxed query still scores below it, so nothing is returned.
    results, outcome = search_with_relaxation("ci pipelines", strict, doc_freq=wp_freq)
    assert results == [] and outcome.strategy_used is None
    relaxed = [q for _, q in relaxation_plan(parse_query("ci pipelines"), doc_freq=wp_freq)]
    assert relaxed and all(run_wp(q) == [] or strict(q) == [] for q in relaxed)


async def test_async_twin_follows_the_same_plan() -> None:
    async def run(query: Query) -> Sequence[Ranked[SearchDocument]]:
        return run_wp(query)

    for text in ["async pool", "ci pipelines", "async DB pool exhaustion in tokio runtime"]:
        expected = search_with_relaxation(text, run_wp, doc_freq=wp_freq)
        assert await search_with_relaxation_async(text, run, doc_freq=wp_freq) == expected
    disabled = await search_with_relaxation_async("ci pipelines", run, enabled=False)
    assert disabled[0] == [] and disabled[1].strategy_used is None
