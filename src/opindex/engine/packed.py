"""Unsigned integers below 2**24 stored in three bytes each, read without copying the file.

An id array whose values need more than 16 bits but fewer than 24 (token ids of a
vocabulary past 65,536 tokens, value positions of a large segment) takes three bytes per
value instead of four (DECISIONS D138). The bytes are read through a little-endian
uint32 view whose stride is 3: element i is bytes ``3i .. 3i + 3``, the fourth of which
belongs to the next value and is masked off. The packed bytes carry one zero byte after
the last value, so the view never reads past them.
"""

from __future__ import annotations

from typing import Any, Final

import numpy as np
import numpy.typing as npt

WIDTH: Final = 3
LIMIT: Final = 1 << 24
"""Values must be below this."""
DTYPE: Final = "<u3"
"""How a segment file's header names a packed array."""
_MASK: Final = np.uint32(LIMIT - 1)


def pack(values: npt.NDArray[Any]) -> bytes:
    """The packed bytes of *values* (each in ``0 .. LIMIT - 1``), with the trailing byte."""
    wide = np.ascontiguousarray(values, dtype="<u4").view(np.uint8).reshape(-1, 4)
    return wide[:, :WIDTH].tobytes() + b"\0"


def packed_size(count: int) -> int:
    """Bytes of ``pack`` of *count* values."""
    return WIDTH * count + 1


class Packed24:
    """A read-only array of *count* packed values in *buffer* from *offset* on: indexed by
    an integer, a slice or an integer array like a numpy array, giving uint32 values."""

    __slots__ = ("_view",)

    def __init__(self, buffer: Any, count: int, offset: int = 0) -> None:
        self._view: npt.NDArray[np.uint32] = np.ndarray(
            shape=(count,), dtype="<u4", buffer=buffer, offset=offset, strides=(WIDTH,)
        )

    @classmethod
    def of(cls, values: npt.NDArray[Any]) -> Packed24:
        """*values* packed in memory (as the writer keeps them until written)."""
        return cls(pack(values), len(values))

    @property
    def dtype(self) -> np.dtype[np.uint32]:
        """The type of the values read."""
        return np.dtype(np.uint32)

    def __len__(self) -> int:
        return len(self._view)

    def __getitem__(self, key: Any) -> Any:
        return self._view[key] & _MASK

    def unpacked(self) -> npt.NDArray[np.uint32]:
        """Every value, as one uint32 array."""
        return self._view & _MASK

    def to_bytes(self) -> bytes:
        """The packed bytes, trailing byte included."""
        return pack(self.unpacked())
