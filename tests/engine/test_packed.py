"""Ids packed in three bytes read back like the numpy array they came from (D138)."""

from __future__ import annotations

import numpy as np
import pytest

from opindex.engine.packed import LIMIT as PACKED_LIMIT
from opindex.engine.packed import Packed24, pack, packed_size


@pytest.mark.parametrize("count", [0, 1, 2, 63, 64, 1000])
def test_packed_ids_read_back_by_index_slice_and_gather(count: int) -> None:
    rng = np.random.default_rng(count)
    values = rng.integers(0, PACKED_LIMIT, size=count, dtype=np.int64)
    if count:
        values[0], values[-1] = PACKED_LIMIT - 1, 0  # every bit set, then none, at the edges
    data = pack(values)
    assert len(data) == packed_size(count)
    packed = Packed24(b"\xff" * 5 + data, count, offset=5)  # read at an offset
    assert len(packed) == count
    assert packed.unpacked().tolist() == values.tolist()
    assert packed[:].tolist() == values.tolist()
    assert packed[count // 3 : count // 2].tolist() == values[count // 3 : count // 2].tolist()
    positions = rng.integers(0, max(count, 1), size=50) if count else np.zeros(0, np.int64)
    assert packed[positions].tolist() == values[positions].tolist()
    assert packed[positions].dtype == np.uint32
    if count:
        assert int(packed[count - 1]) == int(values[-1])


def test_packing_in_memory_gives_the_same_bytes() -> None:
    values = np.array([0, 1, 65_536, PACKED_LIMIT - 1], dtype=np.uint32)
    assert Packed24.of(values).to_bytes() == pack(values)
    assert pack(values) == b"\0\0\0" + b"\x01\0\0" + b"\0\0\x01" + b"\xff\xff\xff" + b"\0"
