"""unique_sorted and sort_order give exactly what np.unique and a stable np.argsort give."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from opindex.engine.sorted_sets import sort_order, unique_sorted


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


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.uint16, np.uint32])
@pytest.mark.parametrize("size", [0, 1, 2, 50, 5000])
def test_sort_order_is_a_stable_argsort(dtype: type[np.integer[Any]], size: int) -> None:
    rng = np.random.default_rng(size)
    for top in (3, 2**31 - 1):  # many ties; keys at the packed bound
        keys = rng.integers(0, top, size, endpoint=True).astype(dtype)
        ordered, order = sort_order(keys)
        expected = np.argsort(keys, kind="stable")
        assert order.tolist() == expected.tolist()
        assert ordered.tolist() == keys[expected].tolist()


def test_keys_past_the_packed_range_are_sorted_by_argsort() -> None:
    for keys in (np.array([2**31, 5, 2**40, 5]), np.array([3, -1, 3, -7])):
        ordered, order = sort_order(keys)
        assert order.tolist() == np.argsort(keys, kind="stable").tolist()
        assert ordered.tolist() == sorted(keys.tolist())
