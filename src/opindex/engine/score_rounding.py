"""Scores rounded to two decimals as ``match.round_score`` rounds them, over arrays.

Scores are reported, gated and ordered at two decimals (``round(clamp(x), 2)``, Python's
correctly rounded decimal rounding). ``round_scores`` computes that for every value;
the two tests the scorer makes of a rounded score over every field and record, whether
it is above 0 and whether it reaches the gate, are one comparison each against the least
double that passes them (``rounds_above_zero``, ``gate_threshold``): round_score never
decreases as its argument grows, so the doubles that pass form one upper range.
"""

from __future__ import annotations

import math
import struct
from functools import lru_cache

import numpy as np
import numpy.typing as npt

from opindex.search import round_score

FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]


def round_scores(values: FloatArray) -> FloatArray:
    """``round_score`` of each value: clamped to [0, 1], rounded to two decimals exactly
    as Python's ``round`` does (values within a hair of a half-cent go through it)."""
    clamped = np.clip(values, 0.0, 1.0)
    scaled = clamped * 100.0
    rounded: FloatArray = np.rint(scaled) / 100.0
    near_half = np.flatnonzero(np.abs(scaled - np.floor(scaled) - 0.5) < 1e-6)
    if len(near_half):  # few distinct values (0.425 = 0.85 / 2 is common): round each once
        distinct, inverse = np.unique(clamped[near_half], return_inverse=True)
        by_python = np.array([round(value, 2) for value in distinct.tolist()], dtype=np.float64)
        rounded[near_half] = by_python[inverse]
    return rounded


def rounds_above_zero(values: FloatArray) -> BoolArray:
    """``round_scores(values) > 0.0``, by one comparison: a rounded score above 0 is at
    least 0.01 (the threshold is the double nearest 0.005, which Python rounds up)."""
    return np.asarray(values >= gate_threshold(0.01))


@lru_cache(maxsize=64)
def gate_threshold(min_score: float) -> float:
    """The least double whose ``round_score`` reaches *min_score* (``-inf`` when every
    score does, ``inf`` when none does): ``round_score(x) >= min_score`` exactly when
    ``x >= gate_threshold(min_score)``. Found by bisection over the doubles of [0, 1],
    whose bit patterns order as they do."""
    if math.isnan(min_score):
        raise ValueError("a gate of NaN passes no score and has no threshold")
    if round_score(0.0) >= min_score:
        return -math.inf
    if round_score(1.0) < min_score:
        return math.inf
    low, high = _bits(0.0), _bits(1.0)  # round_score fails at low, passes at high
    while high - low > 1:
        middle = (low + high) // 2
        if round_score(_double(middle)) >= min_score:
            high = middle
        else:
            low = middle
    return _double(high)


def _bits(value: float) -> int:
    return int(struct.unpack("<q", struct.pack("<d", value))[0])


def _double(bits: int) -> float:
    return float(struct.unpack("<d", struct.pack("<q", bits))[0])
