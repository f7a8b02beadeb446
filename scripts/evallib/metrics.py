"""Recall@k, MRR, no-hit precision and relaxation success over known-item query outcomes.

Definitions (docs/BENCHMARKS.md repeats them):

- rank: 1-based position of the expected record among a path's results (None if absent).
  A hit counts wherever the expected record is, even if records with identical text
  (generated corpora repeat templates) tie with it.
- recall@k: share of a category's queries whose expected record ranks <= k.
- MRR: mean of 1/rank over the category (0 for a miss), within the top 10.
- no-hit precision: share of no-hit queries answered with nothing, or only with results
  flagged as coming from a relaxed query (``meta.wildcard_fallback``). ``strict_empty``
  is the share answered with nothing at all.
- relaxation success: share of needs-relaxation queries whose expected record is in the
  top 10 and whose answer is flagged as relaxed.
- overall: every known-item query (all categories but no-hit) pooled.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

NO_HIT = "no_hit"
NEEDS_RELAXATION = "needs_relaxation"
OVERALL = "overall"


@dataclass(frozen=True, slots=True)
class Outcome:
    """What one path answered to one query."""

    qid: str
    category: str
    path: str
    expected_id: int | None
    ids: tuple[int, ...]
    relaxed: bool = False
    strategy: str | None = None
    seconds: float = 0.0
    requests: int | None = None
    degraded: bool = False
    error: str | None = None

    @property
    def rank(self) -> int | None:
        return rank_of(self.expected_id, self.ids)

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["ids"] = list(self.ids)
        return data


def rank_of(expected: int | None, ids: Sequence[int]) -> int | None:
    """1-based position of *expected* in *ids*, or None."""
    if expected is None:
        return None
    for position, found in enumerate(ids, start=1):
        if found == expected:
            return position
    return None


def recall_at(ranks: Sequence[int | None], k: int) -> float:
    """Share of *ranks* that are <= k (0.0 for no ranks)."""
    if not ranks:
        return 0.0
    return sum(1 for r in ranks if r is not None and r <= k) / len(ranks)


def mean_reciprocal_rank(ranks: Sequence[int | None], cutoff: int = 10) -> float:
    """Mean of 1/rank, counting ranks beyond *cutoff* (and misses) as 0."""
    if not ranks:
        return 0.0
    return sum(1.0 / r for r in ranks if r is not None and r <= cutoff) / len(ranks)


def no_hit_correct(outcome: Outcome) -> bool:
    """A no-hit query is answered correctly by nothing, or only by flagged relaxed results."""
    return not outcome.ids or outcome.relaxed


def percentile(values: Sequence[float], share: float) -> float:
    """Nearest-rank percentile (``share`` in 0..1) of *values*; NaN when empty."""
    if not values:
        return math.nan
    ordered = sorted(values)
    index = max(0, math.ceil(share * len(ordered)) - 1)
    return ordered[min(index, len(ordered) - 1)]


@dataclass(slots=True)
class CategoryScore:
    """The figures of one category (or of all known-item queries) on one path."""

    queries: int = 0
    recall_at_1: float | None = None
    recall_at_10: float | None = None
    mrr: float | None = None
    relaxed_answers: int = 0
    no_hit_precision: float | None = None
    strict_empty: float | None = None
    relaxation_success: float | None = None
    errors: int = 0
    misses: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def score_outcomes(outcomes: Sequence[Outcome], category: str) -> CategoryScore:
    """The figures of *outcomes*, all of one path and of *category* (or OVERALL)."""
    score = CategoryScore(queries=len(outcomes))
    score.relaxed_answers = sum(1 for o in outcomes if o.relaxed)
    score.errors = sum(1 for o in outcomes if o.error is not None)
    if category == NO_HIT:
        if outcomes:
            score.no_hit_precision = sum(map(no_hit_correct, outcomes)) / len(outcomes)
            score.strict_empty = sum(1 for o in outcomes if not o.ids) / len(outcomes)
        score.misses = [o.qid for o in outcomes if not no_hit_correct(o)]
        return score
    ranks = [o.rank for o in outcomes]
    score.recall_at_1 = recall_at(ranks, 1)
    score.recall_at_10 = recall_at(ranks, 10)
    score.mrr = mean_reciprocal_rank(ranks)
    score.misses = [o.qid for o in outcomes if o.rank is None or o.rank > 10]
    if category == NEEDS_RELAXATION and outcomes:
        good = [o for o in outcomes if o.relaxed and o.rank is not None and o.rank <= 10]
        score.relaxation_success = len(good) / len(outcomes)
    return score


def summarize(outcomes: Iterable[Outcome]) -> dict[str, dict[str, CategoryScore]]:
    """``{path: {category: score}}`` plus an OVERALL entry per path (known items only)."""
    grouped: dict[str, dict[str, list[Outcome]]] = {}
    for outcome in outcomes:
        grouped.setdefault(outcome.path, {}).setdefault(outcome.category, []).append(outcome)
    summary: dict[str, dict[str, CategoryScore]] = {}
    for path, categories in grouped.items():
        scores = {name: score_outcomes(items, name) for name, items in categories.items()}
        known = [o for name, items in categories.items() if name != NO_HIT for o in items]
        scores[OVERALL] = score_outcomes(known, OVERALL)
        summary[path] = scores
    return summary


def latency_summary(seconds: Sequence[float]) -> Mapping[str, float]:
    """p50 / p95 / mean in milliseconds."""
    if not seconds:
        return {"p50_ms": math.nan, "p95_ms": math.nan, "mean_ms": math.nan}
    return {
        "p50_ms": percentile(seconds, 0.50) * 1000,
        "p95_ms": percentile(seconds, 0.95) * 1000,
        "mean_ms": sum(seconds) / len(seconds) * 1000,
    }
