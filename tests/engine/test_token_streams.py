"""Varint token streams: widths at every boundary, round trips, value-by-value reads."""

from __future__ import annotations

import numpy as np
import pytest

from opindex.engine import token_streams as ts

EDGES = [0, 1, 127, 128, 16_383, 16_384, 2**21 - 1, 2**21, 2**28 - 1, 2**28, 2**31 - 1]


def test_each_token_takes_seven_bits_a_byte() -> None:
    widths = ts.token_widths(np.array(EDGES, dtype=np.int64))
    assert widths.tolist() == [1, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5]
    stream, starts = ts.encode(np.array([300], dtype=np.int64), np.array([0, 1]))
    assert stream.tolist() == [0x80 | (300 & 0x7F), 300 >> 7]  # low group first
    assert starts.tolist() == [0, 2]


def test_streams_round_trip_at_every_width_boundary() -> None:
    tokens = np.array(EDGES * 3, dtype=np.int64)
    value_start = np.array([0, 5, 5, 20, len(tokens)])  # an empty value among them
    stream, starts = ts.encode(tokens, value_start)
    assert len(stream) == int(ts.token_widths(tokens).sum())
    assert ts.decode(stream).tolist() == tokens.tolist()
    for values in ([0, 1, 2, 3], [3, 1], [1], [], [2, 2]):
        ids, lengths = ts.of_values(stream, starts, np.array(values, dtype=np.int64))
        expected = [tokens[value_start[v] : value_start[v + 1]].tolist() for v in values]
        assert ids.tolist() == [t for part in expected for t in part]
        assert lengths.tolist() == [len(part) for part in expected]


def test_random_streams_read_back_value_by_value() -> None:
    rng = np.random.default_rng(7)
    sizes = rng.integers(0, 12, size=500)
    value_start = np.r_[0, np.cumsum(sizes)]
    tokens = (rng.pareto(1.2, size=int(sizes.sum())) * 50).astype(np.int64) % (2**31)
    stream, starts = ts.encode(tokens, value_start)
    stored = starts.astype(np.uint32)  # as a segment file holds it: narrow, unsigned
    picked = np.sort(rng.choice(500, size=80, replace=False)).astype(np.int64)
    ids, lengths = ts.of_values(stream, stored, picked)
    assert lengths.tolist() == sizes[picked].tolist()
    expected = np.concatenate([tokens[value_start[v] : value_start[v + 1]] for v in picked])
    assert ids.tolist() == expected.tolist()


def test_negative_token_ids_are_refused() -> None:
    with pytest.raises(ValueError, match="never negative"):
        ts.encode(np.array([3, -1]), np.array([0, 2]))


def test_nothing_encodes_to_nothing() -> None:
    stream, starts = ts.encode(np.zeros(0, dtype=np.int64), np.array([0]))
    assert (stream.tolist(), starts.tolist()) == ([], [0])
    assert ts.decode(stream).tolist() == []
