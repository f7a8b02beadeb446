"""Recall, MRR, no-hit precision and relaxation success on hand-made outcomes."""

from __future__ import annotations

import math

import pytest

from evallib.metrics import (
    OVERALL,
    Outcome,
    mean_reciprocal_rank,
    no_hit_correct,
    percentile,
    rank_of,
    recall_at,
    summarize,
)


def _outcome(
    qid: str, category: str, expected: int | None, ids: list[int], **kw: object
) -> Outcome:
    return Outcome(qid, category, "index", expected, tuple(ids), **kw)  # type: ignore[arg-type]


def test_rank_is_one_based_and_none_when_absent() -> None:
    assert rank_of(7, [3, 7, 9]) == 2
    assert rank_of(7, [3, 9]) is None
    assert rank_of(None, [3]) is None


def test_recall_and_mrr() -> None:
    ranks = [1, 2, None, 11]
    assert recall_at(ranks, 1) == 0.25
    assert recall_at(ranks, 10) == 0.5
    assert mean_reciprocal_rank(ranks) == pytest.approx((1 + 0.5) / 4)
    assert recall_at([], 10) == 0.0


def test_no_hit_is_correct_when_empty_or_only_relaxed() -> None:
    assert no_hit_correct(_outcome("n1", "no_hit", None, []))
    assert no_hit_correct(_outcome("n2", "no_hit", None, [4], relaxed=True))
    assert not no_hit_correct(_outcome("n3", "no_hit", None, [4]))


def test_summary_per_category_and_overall() -> None:
    outcomes = [
        _outcome("t1", "title", 1, [1, 2]),
        _outcome("t2", "title", 5, [2, 5]),
        _outcome("d1", "deep_only", 9, []),
        _outcome("r1", "needs_relaxation", 3, [3], relaxed=True),
        _outcome("r2", "needs_relaxation", 4, [4]),
        _outcome("n1", "no_hit", None, [8]),
        _outcome("n2", "no_hit", None, []),
    ]
    scores = summarize(outcomes)["index"]
    assert scores["title"].recall_at_1 == 0.5 and scores["title"].recall_at_10 == 1.0
    assert scores["deep_only"].misses == ["d1"]
    assert scores["needs_relaxation"].relaxation_success == 0.5
    assert scores["no_hit"].no_hit_precision == 0.5 and scores["no_hit"].misses == ["n1"]
    assert scores["no_hit"].recall_at_10 is None
    overall = scores[OVERALL]
    assert overall.queries == 5  # no-hit queries are not known items
    assert overall.recall_at_10 == pytest.approx(4 / 5)


def test_nearest_rank_percentile() -> None:
    values = [float(v) for v in range(1, 101)]
    assert percentile(values, 0.5) == 50.0
    assert percentile(values, 0.95) == 95.0
    assert percentile([3.0], 0.95) == 3.0
    assert math.isnan(percentile([], 0.5))


def test_mixed_sample_alternates_categories_and_kinds() -> None:
    from evallib.corpora import mixed_sample
    from evallib.querygen import KnownItemQuery

    queries = [
        KnownItemQuery(f"{c}-{i}", c, k, "q", 1)  # type: ignore[arg-type]
        for c in ("title", "typo")
        for i, k in enumerate(["work_package"] * 3 + ["meeting"] * 2)
    ]
    sample = mixed_sample(queries, 4)
    assert [(q.category, q.kind) for q in sample] == [
        ("title", "work_package"),
        ("typo", "work_package"),
        ("title", "meeting"),
        ("typo", "meeting"),
    ]
    assert len(mixed_sample(queries, 100)) == len(queries)
