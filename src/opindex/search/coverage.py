"""How many query terms a record must hold to pass the gate, and which records hold that many.

A value's score is ``(sum of best per term / n) * (covered / n) * BASE_SCALE`` (plus the
phrase bonus), a cross-field score that times ``SPREAD_SCALE`` < 1, where *covered*
counts the terms matched (in the value, or anywhere in the record). With each term at its
best score in a segment, the score of a record holding matches of only *c* distinct terms
is therefore bounded by the same formula over the *c* largest bests. When that bound
rounds below ``min_score`` for every *c* < *k*, no record holding fewer than *k* of the
terms can pass, whatever its values (except through the phrase bonus, whose values are
kept apart): ``vector_rank.score_table`` then scores only the records holding *k* terms,
which leaves its result unchanged and ``total`` exact.

With the default gate (0.35) two terms need both, three need two, four need three.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from opindex.search.match import BASE_SCALE

SLACK = 1e-9
"""Added to each bound before rounding: far above the floating-point error of a value
score's few operations, so the bound is never below a score it must cover (a larger bound
only keeps more records)."""


def _rounded(score: float) -> float:
    """``round_score``: clamped to [0, 1], two decimals."""
    return round(min(1.0, max(0.0, score)), 2)


def terms_needed(bests: Sequence[float], min_score: float) -> int | None:
    """The fewest distinct terms a record must hold for a score (without the phrase
    bonus) that rounds to *min_score* or more; None when even every term cannot.

    *bests*: each term's best score over the tokens a segment holds (0: no match there).
    """
    count = len(bests)
    ordered = sorted(bests, reverse=True)
    total = 0.0
    for covered in range(1, count + 1):
        if ordered[covered - 1] <= 0.0:
            return None  # the remaining terms match nothing here
        total += ordered[covered - 1]
        bound = (total / count) * (covered / count) * BASE_SCALE
        if _rounded(bound + SLACK) >= min_score:
            return covered
    return None


def holders(
    value_doc: npt.NDArray[np.int32],
    term_values: Sequence[npt.NDArray[np.int64]],
    needed: int,
    allowed: npt.NDArray[np.bool_],
) -> npt.NDArray[np.bool_]:
    """Per record, whether it is allowed and holds matches of at least *needed* of the
    terms (*term_values*: per term, the values holding one of its tokens)."""
    counts = np.zeros(len(allowed), dtype=np.uint16)
    for values in term_values:
        if not len(values):
            continue
        seen = np.zeros(len(allowed), dtype=bool)
        seen[value_doc[values]] = True
        counts += seen
    held: npt.NDArray[np.bool_] = (counts >= needed) & allowed
    return held
