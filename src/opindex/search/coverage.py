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


def phrase_holds_every_term(
    phrase: npt.NDArray[np.int32], term_ids: Sequence[npt.NDArray[np.int64]]
) -> bool:
    """Whether every term matches one of the phrase's tokens (*term_ids*: per term, the
    token ids scoring above 0): then a value holding the phrase holds every term."""
    return all(bool(np.isin(phrase, ids).any()) for ids in term_ids)


def holders_only(
    value_doc: npt.NDArray[np.int32],
    parts: Sequence[tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]],
    needed: int,
    allowed: npt.NDArray[np.bool_],
    also: npt.NDArray[np.int32] | None = None,
) -> list[tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]]:
    """*parts* (per term: the values holding its tokens, with their scores) narrowed to
    the allowed records holding matches of at least *needed* of the terms, or among the
    records *also*."""
    owners = [value_doc[values] for values, _ in parts]
    counts = np.zeros(len(allowed), dtype=np.uint16)
    for docs in owners:
        if len(docs):
            seen = np.zeros(len(allowed), dtype=bool)
            seen[docs] = True
            counts += seen
    held = counts >= needed
    if also is not None:
        held[also] = True
    held &= allowed
    narrowed: list[tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]] = []
    for (values, scores), docs in zip(parts, owners, strict=True):
        keep = held[docs]
        narrowed.append((values[keep], scores[keep]))
    return narrowed
