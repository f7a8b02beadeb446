"""The weighted count over posting lists equals counting every id by brute force."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from opindex.engine.trigram_count import _counted, holding_at_least, weighed_at_least


def _brute(
    lists: list[list[int]], weights: list[int], least: int, keep: set[int] | None
) -> list[tuple[int, int]]:
    ids = {i for posting in lists for i in posting}
    weight = {i: sum(w for p, w in zip(lists, weights, strict=True) if i in p) for i in ids}
    return sorted((i, weight[i]) for i in ids if weight[i] >= least and (keep is None or i in keep))


@settings(max_examples=300, deadline=None)
@given(
    lists=st.lists(st.sets(st.integers(0, 40), max_size=30), min_size=1, max_size=9),
    data=st.data(),
)
def test_equal_to_counting_every_id(lists: list[set[int]], data: st.DataObject) -> None:
    postings = [sorted(p) for p in lists]
    weights = data.draw(st.lists(st.integers(1, 3), min_size=len(lists), max_size=len(lists)))
    least = data.draw(st.integers(1, sum(weights) + 1))
    kept = data.draw(st.none() | st.sets(st.integers(0, 40)))
    size = data.draw(st.sampled_from([41, 1000]))  # both ways of counting

    def keep(ids: np.ndarray) -> np.ndarray:
        assert kept is not None
        return np.isin(ids, sorted(kept))

    found, counts = weighed_at_least(
        [np.array(p, dtype=np.int32) for p in postings],
        weights,
        least,
        size,
        None if kept is None else keep,
    )
    assert list(zip(found.tolist(), counts.tolist(), strict=True)) == _brute(
        postings, weights, least, kept
    )


def test_large_lists_set_aside_are_still_counted() -> None:
    # least 5: the two long lists (weight 2 in all) are set aside, and an id needs them
    common = np.arange(0, 100, dtype=np.int32)
    rare = [np.array([3, 7], dtype=np.int32), np.array([3, 8], dtype=np.int32),
            np.array([3, 7, 9], dtype=np.int32)]  # fmt: skip
    found = holding_at_least([common, common[::3].copy(), *rare], [1, 1, 1, 1, 1], 5, 100)
    assert found.tolist() == [3]
    assert holding_at_least([common, *rare], [1, 1, 1, 1], 3, 100).tolist() == [3, 7]


def test_least_must_be_positive() -> None:
    with pytest.raises(ValueError):
        holding_at_least([np.array([1], dtype=np.int32)], [1], 0, 2)


@settings(max_examples=300, deadline=None)
@given(
    ids=st.lists(st.integers(0, 30), max_size=80),
    reach=st.integers(1, 6),
    size=st.sampled_from([31, 1000]),
)
def test_counted_runs_are_every_id_occurring_reach_times(
    ids: list[int], reach: int, size: int
) -> None:
    # size 1000: sorted, runs of reach found by comparing each id with the one reach - 1 on
    owners, counts = _counted(np.array(ids, dtype=np.int32), reach, size)
    expected = sorted((i, c) for i, c in Counter(ids).items() if c >= reach)
    assert list(zip(owners.tolist(), counts.tolist(), strict=True)) == expected
