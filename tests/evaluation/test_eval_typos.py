"""Typos and diacritic folding used by the known-item query generator."""

from __future__ import annotations

import random

import pytest
from rapidfuzz.distance import Levenshtein

from evallib.folding import fold, has_diacritics
from evallib.typos import KEY_NEIGHBOURS, TYPO_KINDS, inject_typo


@pytest.mark.parametrize("kind", TYPO_KINDS)
@pytest.mark.parametrize("word", ["timeout", "kestrel", "Budget", "gateway", "queue"])
def test_each_typo_is_one_keystroke_away(kind: str, word: str) -> None:
    rng = random.Random(11)
    for _ in range(20):
        typo, applied = inject_typo(word, rng, kind)  # type: ignore[arg-type]
        lower = word.lower()
        assert applied == kind
        assert typo != lower and typo[0] == lower[0]
        if kind == "drop":
            assert len(typo) == len(lower) - 1 and Levenshtein.distance(typo, lower) == 1
        elif kind == "insert":
            assert len(typo) == len(lower) + 1 and Levenshtein.distance(typo, lower) == 1
        elif kind == "swap":
            assert sorted(typo) == sorted(lower) and Levenshtein.distance(typo, lower) == 2
        else:
            changed = [(a, b) for a, b in zip(lower, typo, strict=True) if a != b]
            assert len(changed) == 1 and changed[0][1] in KEY_NEIGHBOURS[changed[0][0]]


def test_substituted_keys_are_physical_neighbours() -> None:
    assert set("wsz") <= set(KEY_NEIGHBOURS["a"])
    assert "p" not in KEY_NEIGHBOURS["a"]
    assert all(key not in near for key, near in KEY_NEIGHBOURS.items())


def test_short_words_get_no_typo() -> None:
    with pytest.raises(ValueError, match="shorter"):
        inject_typo("plan", random.Random(0))


def test_the_same_seed_gives_the_same_typo() -> None:
    first = [inject_typo("migration", random.Random(5)) for _ in range(3)]
    assert len(set(first)) == 1


@pytest.mark.parametrize(
    ("word", "strip", "transliterate"),
    [
        ("Müller", "Muller", "Mueller"),
        ("Weißenburg", "Weissenburg", "Weissenburg"),
        ("Ørsted", "Orsted", "Oersted"),
        ("Ålesund", "Alesund", "Aalesund"),
        ("Łukasz", "Lukasz", "Lukasz"),
        ("Çağla", "Cagla", "Cagla"),
    ],
)
def test_folding(word: str, strip: str, transliterate: str) -> None:
    assert has_diacritics(word)
    assert fold(word, "strip") == strip
    assert fold(word, "transliterate") == transliterate
    assert not has_diacritics(fold(word))
