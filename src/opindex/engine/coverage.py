"""The records of a segment whose score can still reach the gate, before any is scored.

A value's score is ``(sum of best per term / n) * (covered / n) * BASE_SCALE`` (plus the
phrase bonus), a cross-field score that times ``SPREAD_SCALE`` < 1, where *covered*
counts the terms matched (in the value, or anywhere in the record). Each operation is
monotone, so with each term at its best score over the record's tokens, and *covered*
the number of terms the record matches anywhere, the same formula bounds every value,
field and cross-field score of the record. ``within_reach`` computes that bound for every
record holding a match (its per-term bests by ``np.maximum.at``) and keeps only the
records whose bound can round to ``min_score`` (with the phrase bonus where a record may
hold the phrase): the records left out cannot pass the gate, so ``vector_rank.score_table``
scores only the others, its result unchanged and ``total`` still exact.

With the default gate (0.35) and exact words, two terms need both, three need two, four
need three; fuzzy matches score less and need more.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from opindex.search import BASE_SCALE, PHRASE_BONUS

ROUNDING_MARGIN = 0.005 + 1e-6
"""A score rounds to two decimals at *m* or above only from ``m - 0.005`` on; the 1e-6
covers the floating-point error of a score's few operations (keeping a record too many
costs only its scoring)."""

Parts = list[tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]]


def phrase_holds_every_term(
    phrase: npt.NDArray[np.int32], term_ids: Sequence[npt.NDArray[np.int64]]
) -> bool:
    """Whether every term matches one of the phrase's tokens (*term_ids*: per term, the
    token ids scoring above 0, ascending): then a value holding the phrase matches every
    term. The few phrase tokens are looked up in each term's ids (``np.isin`` built a table
    over the ids' whole range: 0.6 ms per scored segment among the slowest 1M queries)."""
    for ids in term_ids:
        if not len(ids):
            return False
        at = np.minimum(np.searchsorted(ids, phrase), len(ids) - 1)
        if not bool((ids[at] == phrase).any()):
            return False
    return True


def terms_needed(bests: Sequence[float], min_score: float) -> int | None:
    """The fewest distinct terms a record must match for a score (without the phrase
    bonus) that can round to *min_score*; None when even every term cannot.

    *bests*: each term's best score over the tokens a segment holds (0: none there).
    """
    count = len(bests)
    ordered = sorted(bests, reverse=True)
    total = 0.0
    for covered in range(1, count + 1):
        if ordered[covered - 1] <= 0.0:
            return None  # the remaining terms match nothing here
        total += ordered[covered - 1]
        if (total / count) * (covered / count) * BASE_SCALE >= min_score - ROUNDING_MARGIN:
            return covered
    return None


def within_reach(
    value_doc: npt.NDArray[np.int32],
    parts: Sequence[tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]],
    allowed: npt.NDArray[np.bool_],
    min_score: float,
    phrased: bool | npt.NDArray[np.int32],
) -> Parts:
    """*parts* (per term: the values holding its tokens, with their scores) narrowed to
    the allowed records whose score bound can round to *min_score*.

    *phrased*: True when a value holding the phrase matches every term (the bonus is then
    added to the bound of the records matching every term), the records holding the
    phrase (kept whatever their bound), or False without a phrase.

    In two steps, the first cheap: the records matching enough terms at all
    (``terms_needed``, counted over the whole segment), then the bound of those.
    """
    count = len(parts)
    bests = [float(scores.max()) if len(scores) else 0.0 for _, scores in parts]
    needed = terms_needed(bests, min_score)
    if needed is None:  # only the phrase can lift a record to the gate
        needed = count if phrased is True else count + 1
    # each value's record as intp once: every scatter and gather below indexes by them,
    # and numpy would convert narrow indices again for each (at 1M: the count 2.5 -> 1.1
    # ms, ``held[docs]`` 1.4 -> 0.5 ms for 610k values over four terms)
    owners = [value_doc[values.astype(np.intp)].astype(np.intp) for values, _ in parts]
    matched = np.zeros(len(allowed), dtype=np.uint16)
    for docs in owners:
        if len(docs):
            seen = np.zeros(len(allowed), dtype=bool)
            seen[docs] = True
            matched += seen
    held = matched >= needed
    forced = None if isinstance(phrased, bool) else phrased
    if forced is not None:
        held[forced] = True
    held &= allowed
    records = np.flatnonzero(held)  # the bound, for these only
    # each held record's position among them, looked up directly (a binary search of
    # every value's record in *records* cost 6 ms for 190k values at 1M)
    slot_of = np.empty(len(held), dtype=np.int64)
    slot_of[records] = np.arange(len(records))
    total = np.zeros(len(records), dtype=np.float64)
    covered = np.zeros(len(records), dtype=np.int64)
    kept: list[tuple[npt.NDArray[np.int64], npt.NDArray[np.float64], npt.NDArray[np.int64]]] = []
    for (values, scores), docs in zip(parts, owners, strict=True):
        # positions, not a mask: most of a large term's values fall outside, and each
        # mask would be read once per array it selects from
        inside = np.flatnonzero(held[docs])
        slot = slot_of[docs[inside]]
        values, scores = values[inside], scores[inside]
        best = np.zeros(len(records), dtype=np.float64)
        np.maximum.at(best, slot, scores)
        total += best
        covered += best > 0.0
        kept.append((values, scores, slot))
    bound = (total / count) * (covered / count) * BASE_SCALE
    if phrased is True:
        every = covered == count
        bound[every] = np.minimum(1.0, bound[every] + PHRASE_BONUS)
    reach = bound >= min_score - ROUNDING_MARGIN
    if forced is not None:
        reach[slot_of[forced[allowed[forced]]]] = True
    chosen = [(values, scores, reach[slot]) for values, scores, slot in kept]
    return [(values[keep], scores[keep]) for values, scores, keep in chosen]
