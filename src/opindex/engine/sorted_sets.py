"""Distinct values, sorting orders, look-ups and ranges of integer arrays.

numpy 2's ``np.unique`` first collects the distinct values in a hash table, then sorts
them: on this project's id arrays that is about 20 times slower than sorting and dropping
repeats (1.9 ms against 0.09 ms for 20,000 int32 ids), and it imports ``numpy.ma``. This
gives the same arrays: the distinct values ascending, in the input's dtype.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt


def unique_sorted(values: npt.NDArray[Any]) -> npt.NDArray[Any]:
    """The distinct values of *values* (integers), ascending: ``np.unique(values)``."""
    ordered = np.sort(values, axis=None)
    if len(ordered) < 2:
        return ordered
    keep = np.empty(len(ordered), dtype=bool)
    keep[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=keep[1:])
    return ordered[keep]


_POSITION_BITS = 32


def sort_order(keys: npt.NDArray[Any]) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """The keys (integers) ascending, and the positions that sort them, ties in order
    (``np.argsort(keys, kind="stable")``). Non-negative keys below 2**31 (as many as
    2**32) are sorted by one sort of each key and its position packed in an int64:
    numpy's argsort of int64 measured twice as slow (1M keys 26 → 13 ms). The keys
    ``vector_rank._term_bests`` sorts are ascending runs end to end (the values of one matched token
    after another), which numpy's merge sort (the stable kind) follows: 1.6 times faster
    than its quicksort on 1.2M keys of 1,200 runs, though 1.2 times slower on random keys.
    """
    wide = np.asarray(keys).astype(np.int64)
    if len(wide) and (int(wide.min()) < 0 or int(wide.max()) >> 31 or len(wide) >> _POSITION_BITS):
        order = np.argsort(wide, kind="stable")
        return wide[order], order
    packed = np.sort((wide << _POSITION_BITS) | np.arange(len(wide), dtype=np.int64), kind="stable")
    return packed >> _POSITION_BITS, packed & ((1 << _POSITION_BITS) - 1)


def held_at(
    within: npt.NDArray[Any], ids: npt.NDArray[Any]
) -> tuple[npt.NDArray[np.bool_], npt.NDArray[np.int64]]:
    """Per id of *ids* (integers of *within*'s range): whether the ascending *within*
    holds it, and where (meaningless where it does not). The ids are narrowed to
    *within*'s dtype first, else ``searchsorted`` would cast all of *within* to theirs."""
    if not len(within):
        return np.zeros(len(ids), dtype=bool), np.zeros(len(ids), dtype=np.int64)
    narrow = np.asarray(ids).astype(within.dtype)
    at = np.minimum(np.searchsorted(within, narrow), len(within) - 1)
    return np.asarray(within[at] == narrow), at.astype(np.int64)


def expand_ranges(starts: npt.NDArray[Any], lengths: npt.NDArray[Any]) -> npt.NDArray[np.int64]:
    """Every position of the ranges ``[start, start + length)``, in order, in one step."""
    total = int(lengths.sum())
    return np.repeat(starts - np.cumsum(lengths) + lengths, lengths) + np.arange(total)
