"""Rounded scores over arrays equal Python's rounding of each, and the two comparisons
the scorer makes of them are single comparisons against the right double."""

from __future__ import annotations

import math

import numpy as np
import pytest

from opindex.engine.score_rounding import gate_threshold, round_scores, rounds_above_zero
from opindex.search.match import round_score


def test_rounding_matches_python_round_at_half_cents() -> None:
    values = np.array([0.125, 0.135, 0.145, 0.005, 0.015, 1.2, -0.1, 0.3449999, 0.355])
    expected = [round(min(1.0, max(0.0, v)), 2) for v in values.tolist()]  # Python floats
    assert round_scores(values).tolist() == expected


def test_rounding_above_zero_is_one_comparison_at_every_double_near_half_a_cent() -> None:
    below, above = [0.005], [0.005]
    for _ in range(500):
        below.append(float(np.nextafter(below[-1], 0.0)))
        above.append(float(np.nextafter(above[-1], 1.0)))
    spread = np.random.default_rng(3).random(20_000) * 0.03 - 0.005
    values = np.array([*below, *above, *spread.tolist(), 0.0, -0.2, 1.7, 0.015])
    assert rounds_above_zero(values).tolist() == [
        round(min(1.0, max(0.0, v)), 2) > 0.0 for v in values.tolist()
    ]
    assert (rounds_above_zero(values) == (round_scores(values) > 0.0)).all()


def _near(value: float, steps: int) -> list[float]:
    """*value* and the *steps* doubles on each side of it."""
    below, above = [value], [value]
    for _ in range(steps):
        below.append(float(np.nextafter(below[-1], -math.inf)))
        above.append(float(np.nextafter(above[-1], math.inf)))
    return below + above


@pytest.mark.parametrize("min_score", [0.0, 0.01, 0.35, 0.345, 0.5, 0.995, 1.0, 1.01, -0.2])
def test_the_gate_threshold_is_the_least_double_that_passes(min_score: float) -> None:
    threshold = gate_threshold(min_score)
    spread = np.random.default_rng(5).random(5_000) * 1.2 - 0.1
    values = [*spread.tolist(), *_near(min_score, 300), *_near(min_score - 0.005, 300)]
    if math.isfinite(threshold):
        values += _near(threshold, 50)
    for value in values:
        assert (round_score(value) >= min_score) == (value >= threshold), (min_score, value)


def test_a_gate_of_nan_is_refused() -> None:
    with pytest.raises(ValueError, match="NaN"):
        gate_threshold(math.nan)
