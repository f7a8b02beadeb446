"""Fusion arithmetic on tiny ranked lists: confident words keep their place, weak ones yield."""

from __future__ import annotations

import pytest

from opindex.engine.fusion import FusedHit, LexicalHit, SemanticHit, fuse


def words(*keys: str, confident: bool) -> list[LexicalHit]:
    return [LexicalHit(key, 10.0 - rank, confident) for rank, key in enumerate(keys)]


def meaning(*keys: str) -> list[SemanticHit]:
    return [SemanticHit(key, 0.9 - rank / 10) for rank, key in enumerate(keys)]


def summary(hits: list[FusedHit]) -> list[tuple[object, str]]:
    return [(hit.key, hit.found_by) for hit in hits]


def test_confident_word_matches_keep_todays_ranking_then_meaning_follows() -> None:
    fused = fuse(words("a", "b", "c", confident=True), meaning("x", "c", "y"), limit=10)
    assert summary(fused) == [
        ("a", "words"),
        ("b", "words"),
        ("c", "both"),
        ("x", "meaning"),
        ("y", "meaning"),
    ]
    assert (fused[2].lexical_rank, fused[2].semantic_rank) == (3, 2)


def test_weak_word_matches_follow_meaning_by_default_and_label_what_they_share() -> None:
    fused = fuse(words("w1", "m2", "w3", confident=False), meaning("m1", "m2", "m3"), limit=10)
    assert summary(fused) == [
        ("m1", "meaning"),
        ("m2", "both"),
        ("m3", "meaning"),
        ("w1", "words"),
        ("w3", "words"),
    ]
    assert [hit.score for hit in fused[3:]] == [0.0, 0.0]


def test_with_a_weight_weak_word_matches_still_yield_to_meaning() -> None:
    lexical, semantic = words("w1", "w2", "w3", confident=False), meaning("m1", "m2", "m3")
    fused = fuse(lexical, semantic, limit=10, weak_word_weight=0.5)
    # At equal ranks a meaning hit (1/(60+r)) outweighs a weak word hit (0.5/(60+r)).
    assert [key for key, _ in summary(fused)] == ["m1", "m2", "m3", "w1", "w2", "w3"]
    assert fused[3].score == pytest.approx(0.5 / 61)


def test_a_record_found_both_ways_rises_above_either_alone() -> None:
    lexical, semantic = words("w1", "both", confident=False), meaning("m1", "both")
    fused = fuse(lexical, semantic, limit=3, weak_word_weight=0.5)
    assert summary(fused)[0] == ("both", "both")
    expected = 0.5 / (60 + 2) + 1 / (60 + 2)
    assert fused[0].score == pytest.approx(expected)
    assert (fused[0].lexical_rank, fused[0].semantic_rank) == (2, 2)


def test_no_word_match_at_all_is_the_meaning_ranking() -> None:
    fused = fuse([], meaning("m1", "m2"), limit=10)
    assert summary(fused) == [("m1", "meaning"), ("m2", "meaning")]


def test_only_confident_hits_stay_in_front_when_confidence_is_mixed() -> None:
    lexical = [LexicalHit("sure", 5.0, True), LexicalHit("unsure", 4.0, False)]
    fused = fuse(lexical, meaning("m1"), limit=10)
    assert summary(fused) == [("sure", "words"), ("m1", "meaning"), ("unsure", "words")]


def test_modes_lexical_and_semantic_return_one_list_alone() -> None:
    lexical, semantic = words("a", "b", confident=False), meaning("x", "a")
    assert summary(fuse(lexical, semantic, limit=10, mode="lexical")) == [
        ("a", "words"),
        ("b", "words"),
    ]
    assert summary(fuse(lexical, semantic, limit=1, mode="semantic")) == [("x", "meaning")]


def test_limit_cuts_and_ties_break_by_meaning_rank_then_word_rank() -> None:
    fused = fuse(words("w", confident=False), meaning("m"), limit=10, weak_word_weight=1.0)
    assert [hit.key for hit in fused] == ["m", "w"]  # equal scores: the meaning hit first
    assert fuse(words("a", confident=True), meaning("b"), limit=0) == []


@pytest.mark.parametrize(
    ("lexical", "semantic", "options", "message"),
    [
        ([], [], {"mode": "hybrid"}, "mode must be one of"),
        ([], [], {"rrf_k": 0}, "rrf_k"),
        ([], [], {"limit": -1}, "limit"),
        (words("a", "a", confident=True), [], {}, "appears twice in the lexical"),
        ([], meaning("x", "x"), {}, "appears twice in the semantic"),
    ],
)
def test_bad_arguments_are_refused(
    lexical: list[LexicalHit],
    semantic: list[SemanticHit],
    options: dict[str, object],
    message: str,
) -> None:
    arguments: dict[str, object] = {"limit": 10, **options}
    with pytest.raises(ValueError, match=message):
        fuse(lexical, semantic, **arguments)  # type: ignore[arg-type]
