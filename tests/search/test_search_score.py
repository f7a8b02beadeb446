"""Token scoring rules (spec §2.2 with the recorded departures) and §7.1 guard cases."""

from __future__ import annotations

import pytest
from rapidfuzz.distance import Levenshtein

from opindex.search.score import bounded_levenshtein, edit_budget, score_prefix_token, score_token


@pytest.mark.parametrize(
    ("query", "field", "expected"),
    [
        # exact
        ("budget", "budget", 1.0),
        ("a", "a", 1.0),
        # prefix, guarded by query length >= 3
        ("bud", "budget", 0.9),
        ("bu", "budget", 0.0),
        # containment, guarded by query length >= 4
        ("pool", "threadpool", 0.75),
        ("ool", "threadpool", 0.0),
        # morphological shared prefix >= 4: 0.55 + 0.25 * shared / longer
        ("decide", "decision", 0.55 + 0.25 * 4 / 8),
        ("decision", "decide", 0.55 + 0.25 * 4 / 8),
        # edit distance: 1 - d/len(q) * 0.6
        ("budgt", "budget", 1 - (1 / 5) * 0.6),
        ("budget", "budgt", 1 - (1 / 6) * 0.6),
        ("aproval", "approval", 1 - (1 / 7) * 0.6),
        ("recieve", "receive", 1 - (2 / 7) * 0.6),
        # a typo the morph rule also covers takes the better edit score
        ("approval", "approved", 1 - (2 / 8) * 0.6),
        # budgets: d <= 1 below 6 chars, d <= 2 from 6, none below 3
        ("cat", "dog", 0.0),
        ("cat", "cot", 1 - (1 / 3) * 0.6),
        ("hous", "mouse", 0.0),
        ("q3", "q4", 0.0),
        ("kitten", "sitting", 0.0),  # d = 3
        ("kittens", "sittins", 1 - (2 / 7) * 0.6),
        ("", "anything", 0.0),
    ],
)
def test_score_token_rules(query: str, field: str, expected: float) -> None:
    assert score_token(query, field) == pytest.approx(expected)


def test_rules_apply_in_order_first_match_wins() -> None:
    # "approval" is also within edit distance of "approvals", but prefix comes first
    assert score_token("approval", "approvals") == 0.9
    # containment (0.75) beats the morph rule for a token that also shares the prefix
    assert score_token("pool", "poolpool") == 0.9
    assert score_token("tion", "action") == 0.75


@pytest.mark.parametrize(("token", "budget"), [("ab", 0), ("abc", 1), ("abcde", 1), ("abcdef", 2)])
def test_edit_budget(token: str, budget: int) -> None:
    assert edit_budget(token) == budget


@pytest.mark.parametrize(
    ("a", "b", "limit", "expected"),
    [
        ("budget", "budgt", 1, 1),
        ("budget", "budget", 0, 0),
        ("cat", "dog", 1, 2),
        ("cat", "dog", 3, 3),
        ("kitten", "sitting", 2, 3),
        ("kitten", "sitting", 5, 3),
        ("a", "abcdefgh", 2, 3),  # length difference alone exceeds the bound
        ("same", "same", -1, 0),
        ("x", "y", -1, 0),
    ],
)
def test_bounded_levenshtein(a: str, b: str, limit: int, expected: int) -> None:
    assert bounded_levenshtein(a, b, limit) == expected


def test_bounded_levenshtein_never_computes_beyond_the_bound(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[tuple[str, str, int | None]] = []
    real = Levenshtein.distance

    def spy(a: str, b: str, *, score_cutoff: int | None = None) -> int:
        calls.append((a, b, score_cutoff))
        return int(real(a, b, score_cutoff=score_cutoff))

    monkeypatch.setattr(Levenshtein, "distance", spy)  # the module score.py calls into
    # length gap beyond the bound: answered without any distance computation
    assert bounded_levenshtein("a", "a" * 50, 2) == 3
    assert calls == []
    # otherwise the bound is handed to the C implementation as its cut-off
    assert bounded_levenshtein("x" * 40, "y" * 40, 2) == 3
    assert calls == [("x" * 40, "y" * 40, 2)]


def test_prefix_alternative_scores_full_on_prefix_and_falls_back_otherwise() -> None:
    assert score_prefix_token("ci", "cicd") == 1.0
    assert score_prefix_token("async", "asyncio") == 1.0
    assert score_prefix_token("budgt", "budget") == score_token("budgt", "budget")
    assert score_prefix_token("cat", "dog") == 0.0
