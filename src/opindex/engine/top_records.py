"""The best records of a ranking: the *limit* best by (score desc, id asc), rounding
only the scores that can be among them."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from opindex.engine.score_rounding import gate_threshold, round_scores
from opindex.search import round_score

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]


def top_records(ids: IntArray, scores: FloatArray, limit: int) -> IntArray:
    """Positions of the best *limit* records by (score desc, id asc), in that order."""
    count = len(ids)
    if limit <= 0 or count == 0:
        return np.zeros(0, dtype=np.int64)
    if count > limit:
        threshold = _kth_best(scores, limit)
        above = np.flatnonzero(scores > threshold)
        ties = np.flatnonzero(scores == threshold)
        need = limit - len(above)
        if need < len(ties):
            ties = ties[np.argpartition(ids[ties], need - 1)[:need]] if need > 0 else ties[:0]
        chosen = np.concatenate([above, ties])
    else:
        chosen = np.arange(count)
    order = np.lexsort((ids[chosen], -scores[chosen]))
    return chosen[order].astype(np.int64)


_SAMPLE = 4_096


def _kth_best(scores: FloatArray, limit: int) -> float:
    """The *limit*-th best of *scores* (0 < limit < len). Among many, the *limit*-th best
    of a sample is found first: no greater than the one sought, it leaves the few scores
    at or above it to select from (at 1M documents a selection over all cost 2 ms)."""
    pool = scores
    stride = len(scores) // _SAMPLE
    if stride >= 8 and 4 * limit <= _SAMPLE:
        pool = scores[scores >= _selected(scores[::stride], limit)]
    return _selected(pool, limit)


def _selected(scores: FloatArray, limit: int) -> float:
    """The *limit*-th best of *scores*, selected over all of them."""
    return float(np.partition(scores, len(scores) - limit)[len(scores) - limit])


def top_rounded(ids: IntArray, weighted: FloatArray, limit: int) -> tuple[IntArray, FloatArray]:
    """``top_records(ids, round_scores(weighted), limit)`` and those records' rounded
    scores, rounding only the records that can be among them: the *limit*-th best rounded
    score is the rounded *limit*-th best score (rounding never reorders), so only the
    records whose score rounds to it or above (``gate_threshold``) are rounded."""
    candidates = np.arange(len(ids))
    if 0 < limit < len(ids):
        kth = _kth_best(weighted, limit)
        candidates = np.flatnonzero(weighted >= gate_threshold(round_score(kth)))
    rounded = round_scores(weighted[candidates])
    best = top_records(ids[candidates], rounded, limit)
    return candidates[best], rounded[best]
