"""Token streams: each field value's token ids in order, varint-coded, read value by value.

A token id takes 7 bits a byte, least significant group first; every byte but a token's
last has its high bit set (LEB128). A segment stores the bytes of all its values one after
another and where each value's bytes start (``starts``, then the end). On the Zipf corpora
a token takes 1.9 bytes instead of 3 packed (DECISIONS D178): frequent tokens were seen
first, so they have small ids. Only a search's few values are ever decoded (the phrase
check and the snippets of the returned records), so no search pays for it in proportion
to the tenant.
"""

from __future__ import annotations

from typing import Any, Final

import numpy as np
import numpy.typing as npt

from opindex.engine.sorted_sets import expand_ranges

IntArray = npt.NDArray[np.int64]
Bytes = npt.NDArray[np.uint8]

_MAX_BYTES: Final = 5  # token ids are below 2**31: 5 groups of 7 bits hold them
_LOW: Final = np.uint8(0x7F)


def token_widths(tokens: npt.NDArray[Any]) -> IntArray:
    """The bytes each of *tokens* (ids, none negative) takes."""
    wide = tokens.astype(np.int64)
    widths = np.ones(len(wide), dtype=np.int64)
    for k in range(1, _MAX_BYTES):
        widths += wide >= (1 << (7 * k))
    return widths


def encode(tokens: npt.NDArray[Any], value_start: npt.NDArray[Any]) -> tuple[Bytes, IntArray]:
    """The stream of *tokens*, whose values are ``tokens[value_start[v]:value_start[v+1]]``,
    and where each value's bytes start in it (then the end)."""
    wide = tokens.astype(np.int64)
    if len(wide) and int(wide.min()) < 0:
        raise ValueError("token ids are never negative")
    widths = token_widths(wide)
    ends = np.cumsum(widths)
    token_bytes = np.zeros(len(wide) + 1, dtype=np.int64)
    token_bytes[1:] = ends
    group = expand_ranges(np.zeros(len(wide), np.int64), widths)  # 0 .. width-1 per token
    owner = np.repeat(wide, widths)
    stream = ((owner >> (7 * group)) & 0x7F).astype(np.uint8)
    stream[np.repeat(widths - 1, widths) > group] |= np.uint8(0x80)
    return stream, token_bytes[np.asarray(value_start, dtype=np.int64)]


def decode(stream: Bytes) -> IntArray:
    """Every token id of the (whole-token) bytes *stream*."""
    last = np.flatnonzero(stream < 0x80)
    first = np.zeros(len(last), dtype=np.int64)
    first[1:] = last[:-1] + 1
    tokens = (stream[first] & _LOW).astype(np.int64)
    widths = last - first + 1
    for k in range(1, _MAX_BYTES):
        longer = np.flatnonzero(widths > k)
        if not len(longer):
            break
        tokens[longer] |= (stream[first[longer] + k] & _LOW).astype(np.int64) << (7 * k)
    return tokens


def of_values(
    stream: Bytes, starts: npt.NDArray[Any], values: IntArray
) -> tuple[IntArray, IntArray]:
    """The token ids of *values*, value after value, and how many each has."""
    begin = starts[values].astype(np.int64)  # stored narrow and unsigned
    sizes = starts[values + 1].astype(np.int64) - begin
    data = stream[expand_ranges(begin, sizes)]
    ends = np.zeros(len(data) + 1, dtype=np.int64)
    np.cumsum(data < 0x80, out=ends[1:])
    bounds = np.zeros(len(values) + 1, dtype=np.int64)
    np.cumsum(sizes, out=bounds[1:])
    return decode(data), np.diff(ends[bounds])
