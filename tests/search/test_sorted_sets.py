"""unique_sorted gives exactly what np.unique gives."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from opindex.search.sorted_sets import unique_sorted


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.uint16])
@pytest.mark.parametrize("size", [0, 1, 2, 50, 5000])
def test_the_same_arrays_as_numpy(dtype: type[np.integer[Any]], size: int) -> None:
    rng = np.random.default_rng(size)
    values = rng.integers(0, max(2, size // 3), size).astype(dtype)
    found, expected = unique_sorted(values), np.unique(values)
    assert found.dtype == expected.dtype and np.array_equal(found, expected)


def test_distinct_values_ascending() -> None:
    values = np.array([5, 3, 5, 9, 3, 1], dtype=np.int32)
    assert unique_sorted(values).tolist() == [1, 3, 5, 9]
    assert values.tolist() == [5, 3, 5, 9, 3, 1]  # the input is left as it was
