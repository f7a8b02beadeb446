"""Field scoring: coverage, phrase bonus with headroom, matched offsets, spec §7.1 guards."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from opindex.search import match as match_module
from opindex.search.analysis import (
    _LATIN_FOLDS,
    LONG_TEXT,
    AnalyzedText,
    _fold_long,
    _fold_short,
    fold_latin,
    folded_latin,
    latin_expansions,
)
from opindex.search.match import BASE_SCALE, QueryMatcher, score_field, token_starts
from opindex.search.query import Alternative, alternative_score, parse_query
from opindex.search.tokenizer import token_texts, tokenize


@pytest.mark.parametrize(
    ("query", "field", "matches"),
    [
        ("cat", "dog", False),  # distance 3: below the length gate
        ("budget", "budgt", True),  # distance 1, length >= 6
        ("budgt", "budget", True),
        ("Müller", "muller", True),  # NFKD normalization
        ("muller", "Müller", True),
        ("muller", "Mu\u0308ller", True),
        ("cafe", "Café", True),
    ],
)
def test_spec_guard_cases(query: str, field: str, matches: bool) -> None:
    assert (score_field(query, field).score > 0) is matches


def test_coverage_ranks_both_tokens_above_one() -> None:
    both = score_field("budget approval", "Approval of the budget").score
    one = score_field("budget approval", "Approval of the minutes").score
    assert both > one > 0
    # mean(best) * coverage: (1 + 0)/2 * 1/2, scaled for headroom
    assert one == pytest.approx(round(0.25 * BASE_SCALE, 2))


def test_verbatim_phrase_outranks_scattered_tokens() -> None:
    verbatim = score_field("budget approval", "The budget approval is due").score
    scattered = score_field("budget approval", "Approval of the budget").score
    assert verbatim == 1.0
    assert scattered == BASE_SCALE
    assert verbatim > scattered


def test_only_a_verbatim_phrase_reaches_one() -> None:
    assert score_field("budget", "budget").score == 1.0
    assert score_field("budget", "budgets").score == round(0.9 * BASE_SCALE, 2)
    assert score_field("budget approval", "approval budget").score < 1.0


def test_phrase_includes_stop_words_as_written() -> None:
    # stop words are not scored, but the verbatim check uses the query as written
    assert score_field("approval of the budget", "approval of the budget").score == 1.0
    assert score_field("approval of the budget", "approval budget").score == BASE_SCALE


def test_matched_offsets_point_at_the_best_tokens_in_the_original_text() -> None:
    text = "Q3: Approval of the Budget (budgets)"
    result = score_field("budget approval", text)
    assert result.matched_offsets == (text.index("Approval"), text.index("Budget"))


def test_matched_offsets_for_non_ascii_text() -> None:
    text = "Réunion avec Anna Mu\u0308ller à Zürich"
    result = score_field("muller zurich", text)
    assert [text[o : o + 2] for o in result.matched_offsets] == ["Mu", "Zü"]


def test_no_match_has_no_offsets() -> None:
    assert score_field("zebra", "nothing here").matched_offsets == ()


def test_short_and_exact_queries_use_containment_on_raw_text() -> None:
    assert score_field("Q3", "Approval of q3 budget").score == 1.0
    assert score_field("n-", "non-stop").score == 1.0  # punctuation survives containment
    assert score_field(parse_query("OF Q3", "exact"), "Approval of q3 budget").score == 1.0
    assert score_field(parse_query("of budget", "exact"), "Approval of q3 budget").score == 0.0


def test_matcher_scores_each_distinct_token_once(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[str, str]] = []

    def counting(alternative: Alternative, token: str) -> float:
        calls.append((alternative.token, token))
        return alternative_score(alternative, token)

    monkeypatch.setattr(match_module, "alternative_score", counting)
    matcher = QueryMatcher(parse_query("budget"))
    values = [AnalyzedText("budget budget budgets"), AnalyzedText("budgets and budget budget")]
    assert [matcher.score(v) for v in values] == [1.0, 1.0]
    matcher.learn(values)
    assert matcher.best_values([values, values]) == ([1.0, 1.0], [0, 0])
    assert sorted(calls) == [("budget", "budget"), ("budget", "budgets")]


def test_alternatives_take_the_best_score() -> None:
    query = parse_query("(bug|defect) report")
    assert score_field(query, "defect report").score == BASE_SCALE
    assert score_field(query, "bug report").score == BASE_SCALE


_LATIN_TEXT = st.text(
    alphabet=st.sampled_from(list("abcXYZ09 -_.'é É ñ ß æ Ø ½ ı İ ü\u0301\u2014ǅ")), max_size=60
)


@settings(max_examples=300, deadline=None)
@given(_LATIN_TEXT, st.data())
def test_token_starts_are_the_tokenizers_offsets(text: str, data: st.DataObject) -> None:
    spans = tokenize(text)
    tokens = sorted({span.text for span in spans})
    targets = set(data.draw(st.lists(st.sampled_from(tokens), unique=True))) if tokens else set()
    targets.add("absent")
    expected = tuple(span.start for span in spans if span.text in targets)
    assert token_starts(AnalyzedText(text), targets) == expected


_FOLDED_LONGER = st.text(
    alphabet=st.sampled_from(list("abX09 -_.'é É ß æ Œ Þ ½ ǅ ĳ ı ü")), max_size=60
)


@settings(max_examples=300, deadline=None)
@given(_FOLDED_LONGER, st.data())
def test_token_starts_map_back_through_letters_folded_to_several(
    text: str, data: st.DataObject
) -> None:
    spans = tokenize(text)
    tokens = sorted({span.text for span in spans})
    targets = set(data.draw(st.lists(st.sampled_from(tokens), unique=True))) if tokens else set()
    targets.add("absent")
    expected = tuple(span.start for span in spans if span.text in targets)
    assert token_starts(AnalyzedText(text), targets) == expected


def test_token_starts_after_several_expanding_letters() -> None:
    text = "Gößmann ½ straße Æsir Œuvre ßß x"
    value = AnalyzedText(text)
    targets = {"gossmann", "12", "strasse", "aesir", "oeuvre", "ssss", "x"}
    assert token_starts(value, targets) == tuple(span.start for span in tokenize(text))


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(max_codepoint=0x2FF), max_size=60))
def test_folded_latin_text_has_the_same_tokens(text: str) -> None:
    folded = fold_latin(text)
    if folded is None:
        assert not text.isascii()
    else:
        assert folded.isascii() and token_texts(folded) == token_texts(text)


def test_token_starts_take_whole_runs_when_targets_overlap() -> None:
    text = "syncs sync resync sync_x Sync2 SYNC ssync syncsync"
    targets = {"sync", "syncs", "sync2", "s"}
    expected = tuple(span.start for span in tokenize(text) if span.text in targets)
    assert token_starts(AnalyzedText(text), targets) == expected == (0, 6, 18, 25, 31)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(max_codepoint=0x2FF), max_size=60))
def test_folded_latin_text_is_the_translation_by_the_table(text: str) -> None:
    translated = text.translate(_LATIN_FOLDS)
    assert fold_latin(text) == (
        translated if translated.isascii() and max(text, default="a") < "\u0250" else None
    )


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(max_codepoint=0x2FF), max_size=60))
def test_the_numpy_fold_of_long_texts_is_the_codecs(text: str) -> None:
    # LONG_TEXT chooses the path by length only: both must agree on every text
    short = _fold_short(text)
    expected = None if short is None else (short, latin_expansions(text))
    assert _fold_long(text) == expected


def test_a_long_text_is_folded_with_its_expansions_and_its_tokens_found() -> None:
    text = ("Gößmann ½ straße Æsir naïve café " * 100)[: LONG_TEXT + 7]
    assert len(text) >= LONG_TEXT
    assert folded_latin(text) == (
        text.translate(_LATIN_FOLDS),
        latin_expansions(text),
    )
    assert fold_latin(text + "©") is None and fold_latin(text + "λ") is None
    targets = {"gossmann", "12", "strasse", "aesir", "naive"}
    expected = tuple(span.start for span in tokenize(text) if span.text in targets)
    assert token_starts(AnalyzedText(text), targets) == expected and len(expected) > 300
