"""TokenRank finds ids where a binary search of the ascending list finds them."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from opindex.engine.token_rank import TokenRank


@pytest.mark.parametrize("dtype", [np.int32, np.uint16, np.uint32])
@pytest.mark.parametrize("size", [0, 1, 63, 64, 65, 5000])
def test_positions_are_the_binary_searchs(dtype: type[np.integer[Any]], size: int) -> None:
    rng = np.random.default_rng(size)
    top = max(1, 3 * size)
    listed = np.sort(rng.choice(top, size, replace=False)).astype(dtype)
    asked = np.r_[rng.integers(-5, top + 200, 3 * size + 10), listed.astype(np.int64)]
    held, at = TokenRank(listed).find(asked)
    expected = np.isin(asked, listed.astype(np.int64))
    assert held.tolist() == expected.tolist()
    assert at[held].tolist() == np.searchsorted(listed.astype(np.int64), asked[held]).tolist()


def test_an_empty_list_holds_nothing_and_ids_past_it_are_not_held() -> None:
    assert TokenRank(np.zeros(0, dtype=np.int32)).find(np.array([0, 5, -1]))[0].tolist() == [
        False,
        False,
        False,
    ]
    held, at = TokenRank(np.array([0, 64, 200], dtype=np.int32)).find(
        np.array([200, 201, 64, 63, 0, 10**12])
    )
    assert held.tolist() == [True, False, True, False, True, False]
    assert at[held].tolist() == [2, 1, 0]


@pytest.mark.parametrize("size", [0, 1, 64, 5000])
def test_a_rank_rebuilt_from_its_stored_words_finds_the_same(size: int) -> None:
    rng = np.random.default_rng(size)
    listed = np.sort(rng.choice(max(1, 3 * size), size, replace=False)).astype(np.int64)
    rank = TokenRank(listed)
    assert rank.ids().tolist() == listed.tolist()
    stored = TokenRank.of_words(rank.words.copy())
    assert stored.ids().tolist() == listed.tolist()
    asked = np.r_[rng.integers(-5, 3 * size + 200, 3 * size + 10), listed]
    (held, at), (expected_held, expected_at) = stored.find(asked), rank.find(asked)
    assert held.tolist() == expected_held.tolist()
    assert at[held].tolist() == expected_at[held].tolist()
