"""The one tokenizer: normalization, token runs and offsets into the original text."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from opindex.search.analysis import AnalyzedText
from opindex.search.tokenizer import normalize_text, normalize_token, token_texts, tokenize


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Budget Approval", [("budget", 0, 6), ("approval", 7, 15)]),
        ("  leading and trailing  ", [("leading", 2, 9), ("and", 10, 13), ("trailing", 14, 22)]),
        (
            "snake_case and kebab-case",
            [
                ("snake", 0, 5),
                ("case", 6, 10),
                ("and", 11, 14),
                ("kebab", 15, 20),
                ("case", 21, 25),
            ],
        ),
        ("Q3 2024, v1.2", [("q3", 0, 2), ("2024", 3, 7), ("v1", 9, 11), ("2", 12, 13)]),
        # composed diacritics keep their single-character offsets
        ("Müller café", [("muller", 0, 6), ("cafe", 7, 11)]),
        # decomposed input: the combining mark stays inside the run and is stripped
        ("Mu\u0308ller cafe\u0301", [("muller", 0, 7), ("cafe", 8, 13)]),
        # ligatures expand under NFKD; offsets still point at the original characters
        ("ﬁle ﬂow", [("file", 0, 3), ("flow", 4, 7)]),
        ("Straße", [("strasse", 0, 6)]),
        # emoji and symbols separate tokens and are not tokens themselves
        ("ship 🚀 it👍now", [("ship", 0, 4), ("it", 7, 9), ("now", 10, 13)]),
        ("🎉🎉", []),
        # right-to-left scripts, with and without vowel points
        ("שָׁלוֹם עולם", [("שלום", 0, 7), ("עולם", 8, 12)]),
        ("كَتَبَ كتب", [("كتب", 0, 6), ("كتب", 7, 10)]),
        # full-width forms fold to ASCII
        ("ＡＢＣ１２", [("abc12", 0, 5)]),
        ("", []),
    ],
)
def test_tokens_and_offsets(text: str, expected: list[tuple[str, int, int]]) -> None:
    assert [tuple(token) for token in tokenize(text)] == expected
    assert token_texts(text) == [token for token, _, _ in expected]


@pytest.mark.parametrize(
    ("raw", "normalized"),
    [("MÜLLER", "muller"), ("Ångström", "angstrom"), ("naïve", "naive"), ("Ǆ", "dz"), ("x²", "x2")],
)
def test_normalize_token(raw: str, normalized: str) -> None:
    assert normalize_token(raw) == normalized


def test_composed_and_decomposed_forms_tokenize_identically() -> None:
    text = "Résumé of the Müller–Ørsted meeting in Zürich"
    decomposed = unicodedata.normalize("NFD", text)
    assert token_texts(text) == token_texts(decomposed)


def test_normalize_text_joins_tokens() -> None:
    assert normalize_text("  Hello,   WORLD! Ça va? ") == "hello world ca va"


def test_analyzed_text_accepts_stored_tokens() -> None:
    text = "Approval of Q3 budget"
    stored = AnalyzedText(text, token_texts(text))
    assert stored == AnalyzedText(text)
    assert stored.distinct == frozenset({"approval", "of", "q3", "budget"})
    assert stored.contains_sequence(["q3", "budget"])
    assert not stored.contains_sequence(["budget", "q3"])


@given(st.text())
def test_offsets_always_point_at_the_run_that_normalizes_to_the_token(text: str) -> None:
    tokens = tokenize(text)
    previous_end = 0
    for token in tokens:
        assert previous_end <= token.start < token.end <= len(text)
        assert normalize_token(text[token.start : token.end]) == token.text
        assert token.text
        previous_end = token.end
    assert token_texts(text) == [token.text for token in tokens]


@given(st.text())
def test_normalization_is_idempotent(text: str) -> None:
    once = normalize_text(text)
    assert normalize_text(once) == once


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Søren Ørsted", ["soren", "orsted"]),
        ("Łukasz Wałęsa", ["lukasz", "walesa"]),
        ("Straße", ["strasse"]),
        ("Æsir Œuvre", ["aesir", "oeuvre"]),
        ("Þór Đorđe", ["thor", "dorde"]),
    ],
)
def test_letters_nfkd_keeps_whole_are_folded(text: str, expected: list[str]) -> None:
    assert token_texts(text) == expected
    assert [token.text for token in tokenize(text)] == expected
