"""A vocabulary slice's trigram postings: the keys of a token's padded trigrams and the
arrays of its index (``index_arrays``: stored with a large slice, its short lists deflated,
``stored_lists``, D185; built at open for a small one, D183), which
``token_index.TokenIndex`` reads through ``TrigramLists``.

A token is padded as ``"\\n\\n" + token + "\\n\\n"``; each window of three code points is
one int64 key (21 bits a code point). For each distinct key the index holds the tokens
holding it as posting entries, ``min(length, LENGTH_CAP) << LENGTH_SHIFT | local id``,
ordered by length, then id, so a range of lengths is one run of each list (DECISIONS
D156).
"""

from __future__ import annotations

import threading
import zlib
from collections import OrderedDict
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import numpy.typing as npt

from opindex.search import SHARED_PREFIX_MIN

_PAD = ord("\n")
_SHIFT = 21  # code points fit in 21 bits: three make one int64 trigram key


def _key(a: int, b: int, c: int) -> int:
    return (a << (2 * _SHIFT)) | (b << _SHIFT) | c


def padded_keys(token: str) -> list[int]:
    """The keys of the padded trigrams of *token*, with repeats, in order."""
    codes = [_PAD, _PAD, *map(ord, token), _PAD, _PAD]
    return [_key(*codes[i : i + 3]) for i in range(len(codes) - 2)]


def head_keys(token: str) -> list[int]:
    """Keys every token starting with ``token[:4]`` holds (padded start and inner).

    From two characters on, the first padded key (pad, pad, c0: starts with c0) is left
    out: the next one (pad, c0, c1: starts with c0 c1) implies it, and its list is the
    longest (every token starting with that letter)."""
    head = token[:SHARED_PREFIX_MIN]
    codes = [_PAD, _PAD, *map(ord, head)]
    keys = [_key(*codes[i : i + 3]) for i in range(len(codes) - 2)]
    return keys[1:] if len(head) >= 2 else keys


def inner_keys(token: str) -> list[int]:
    """The keys of the trigrams inside *token* (unpadded), with repeats, in order."""
    codes = list(map(ord, token))
    return [_key(*codes[i : i + 3]) for i in range(len(codes) - 2)]


STORED_ARRAYS: tuple[str, ...] = ("keys", "offsets", "postings", "deflated", "deflated_offsets")
"""The arrays a stored slice holds beside its text (``stored_lists``): the token bounds
are read off the text itself (``token_bounds``; DECISIONS D181)."""


LENGTH_SHIFT = 24
"""A posting entry is ``min(length, LENGTH_CAP) << LENGTH_SHIFT | local id``."""
LENGTH_CAP = 127
LOCAL_MASK = (1 << LENGTH_SHIFT) - 1
MAX_SLICE_TOKENS = 1 << LENGTH_SHIFT
"""A slice holds fewer tokens than this (its postings are int32: DECISIONS D156)."""


def entries(locals_: npt.NDArray[Any], lengths: npt.NDArray[Any]) -> npt.NDArray[np.int32]:
    """The posting entries of the tokens *locals_* of lengths *lengths*."""
    capped = np.minimum(lengths.astype(np.int64), LENGTH_CAP)
    return ((capped << LENGTH_SHIFT) | locals_.astype(np.int64)).astype(np.int32)


def local_ids(found: npt.NDArray[Any]) -> npt.NDArray[np.int32]:
    """The local ids of posting entries *found*."""
    return (found & LOCAL_MASK).astype(np.int32)


def token_bounds(text: npt.NDArray[np.uint8]) -> tuple[npt.NDArray[Any], npt.NDArray[Any]]:
    """Each token's start and length in code points, as ``index_arrays`` gives them, from
    the UTF-8 bytes *text* of a slice's joined text; unsigned, starts in four bytes,
    lengths in two where every token is shorter than 65,536 code points.

    A token ends at each newline byte; a newline's code-point offset is its byte offset
    less the continuation bytes (``10xxxxxx``) before it, so only text with non-ASCII
    characters needs more than one pass."""
    newlines = np.flatnonzero(text == _PAD)
    high = np.flatnonzero(text >= 0x80)
    if len(high):
        continuation = high[(text[high] & 0xC0) == 0x80]
        newlines = newlines - np.searchsorted(continuation, newlines)
    if len(newlines) and int(newlines[-1]) > np.iinfo(np.uint32).max:
        raise ValueError("a vocabulary slice's text holds fewer than 2**32 code points")
    starts = newlines[:-1] + 1
    lengths = newlines[1:] - starts
    top = int(lengths.max()) if len(lengths) else 0
    narrow = np.uint16 if top <= np.iinfo(np.uint16).max else np.uint32
    return starts.astype(np.uint32), lengths.astype(narrow)


_ENTRY_BITS = 31  # a posting entry is below 2**31: a window's trigram rank goes above it
_SMALL_ALPHABET = 1625  # 1625**3 < 2**32: three code-point ranks make one trigram rank


def _trigram_ranks(
    codes: npt.NDArray[np.uint32],
) -> tuple[npt.NDArray[np.int64], Callable[[npt.NDArray[np.int64]], npt.NDArray[np.int64]]]:
    """For the windows of three code points in *codes*: each window's rank among the
    trigrams in key order, and the function giving the keys of ranks.

    A slice's alphabet is usually small (letters, digits, a few marks): then a window's
    rank is its three code points' ranks in the alphabet as three digits, no sort needed.
    Otherwise the keys themselves are sorted and a rank is a key's place among them."""
    present = np.zeros(int(codes.max()) + 1, dtype=bool)
    present[codes] = True
    alphabet = np.flatnonzero(present).astype(np.int64)
    width = len(alphabet)
    if width <= _SMALL_ALPHABET:
        rank = (np.cumsum(present, dtype=np.int64) - 1)[codes]

        def keys_of(ranks: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
            first, rest = np.divmod(ranks, width * width)
            second, third = np.divmod(rest, width)
            high = (alphabet[first] << (2 * _SHIFT)) | (alphabet[second] << _SHIFT)
            return high | alphabet[third]

        return (rank[:-2] * width + rank[1:-1]) * width + rank[2:], keys_of
    wide = codes.astype(np.int64)
    keys = (wide[:-2] << (2 * _SHIFT)) | (wide[1:-1] << _SHIFT) | wide[2:]
    distinct, ranks = np.unique(keys, return_inverse=True)
    return ranks.astype(np.int64).reshape(-1), lambda found: distinct[found]


def index_arrays(joined: str) -> dict[str, npt.NDArray[Any]]:
    """The arrays of the trigram index of *joined* (see ``TokenIndex``): token ``starts``
    and ``lengths`` (code points; not stored: ``token_bounds`` reads them off the text),
    distinct trigram ``keys`` (ascending), and for each key the tokens holding it,
    ``postings[offsets[k]:offsets[k + 1]]``, as entries (``entries``: by length, then
    id, ascending). Written with a large vocabulary slice at commit, so a reader maps them
    instead of building them; built at open for a small one (DECISIONS D183).

    One sort: each window's trigram rank (``_trigram_ranks``) and its token's entry make
    one int64, ordered by trigram, then entry; a token's repeated trigram is one value."""
    codes = np.frombuffer(joined.encode("utf-32-le"), dtype=np.uint32)
    newlines = np.flatnonzero(codes == _PAD)
    starts = newlines[:-1] + 1
    lengths = newlines[1:] - starts
    size = len(starts)
    if size >= MAX_SLICE_TOKENS:
        raise ValueError(f"a vocabulary slice holds fewer than {MAX_SLICE_TOKENS} tokens")
    if size == 0:
        keys = np.zeros(0, dtype=np.int64)
        return {"starts": starts, "lengths": lengths, "keys": keys,
                "offsets": np.zeros(1, dtype=np.int64),
                "postings": np.zeros(0, dtype=np.int32)}  # fmt: skip
    # Two newlines between tokens: the windows of three code points then tile the tokens
    # exactly, L + 2 windows for a token of length L.
    padded = np.frombuffer(joined.replace("\n", "\n\n").encode("utf-32-le"), dtype=np.uint32)
    ranks, keys_of = _trigram_ranks(padded)
    if len(ranks) and int(ranks.max()) >= 1 << (63 - _ENTRY_BITS):
        raise ValueError("a vocabulary slice holds fewer than 2**32 distinct trigrams")
    owners = np.repeat(entries(np.arange(size), lengths).astype(np.int64), lengths + 2)
    combined = (ranks << _ENTRY_BITS) | owners
    combined.sort()
    keep = np.ones(len(combined), dtype=bool)
    keep[1:] = combined[1:] != combined[:-1]
    combined = combined[keep]
    held = combined >> _ENTRY_BITS
    first = np.flatnonzero(np.r_[True, held[1:] != held[:-1]])
    return {
        "starts": starts,
        "lengths": lengths,
        "keys": keys_of(held[first]),
        "offsets": np.r_[first, len(combined)].astype(np.int64),
        "postings": (combined & ((1 << _ENTRY_BITS) - 1)).astype(np.int32),
    }


DEFLATED_LIST_ENTRIES = 1 << 16
"""A posting list of at most this many entries is stored deflated, a longer one as it is
(inflating costs about 10 ns an entry)."""

DEFLATED_SLICE_TOKENS = 1 << 20
"""A slice of this many tokens or more stores every list as it is: its lists are longer,
and inflating them cost a search at 100k documents (1.2 M tokens) 2.9 ms on average and
10 ms at p95, where the text outweighs the vocabulary anyway (DECISIONS D185)."""


def _deflate(entries: npt.NDArray[np.int32]) -> bytes:
    gaps = np.diff(entries.astype(np.int64), prepend=0).astype("<u4")
    # as four byte planes: the high bytes of gaps between ascending entries are mostly 0
    return zlib.compress(gaps.view(np.uint8).reshape(-1, 4).T.tobytes(), 6)


def stored_lists(arrays: dict[str, npt.NDArray[Any]]) -> dict[str, npt.NDArray[Any]]:
    """The stored form of a trigram index *arrays* (``index_arrays``): in a slice of
    fewer than ``DEFLATED_SLICE_TOKENS`` tokens, each list of at most ``DEFLATED_LIST_ENTRIES``
    entries deflated, as the gaps between its entries in four byte planes
    (``deflated[deflated_offsets[k]:deflated_offsets[k + 1]]``), every other list as it is
    (``postings[offsets[k]:offsets[k + 1]]``); each list is in one of the two."""
    offsets, postings = arrays["offsets"], arrays["postings"]
    sizes = np.diff(offsets)
    most = DEFLATED_LIST_ENTRIES if len(arrays["starts"]) < DEFLATED_SLICE_TOKENS else 0
    short = sizes <= most
    blobs = [_deflate(postings[offsets[k] : offsets[k + 1]]) for k in np.flatnonzero(short)]
    deflated_sizes = np.zeros(len(sizes), dtype=np.int64)
    deflated_sizes[short] = [len(blob) for blob in blobs]
    return {
        "keys": arrays["keys"],
        "offsets": np.r_[0, np.cumsum(np.where(short, 0, sizes))].astype(np.int64),
        "postings": postings[np.repeat(~short, sizes)],
        "deflated": np.frombuffer(b"".join(blobs), dtype=np.uint8),
        "deflated_offsets": np.r_[0, np.cumsum(deflated_sizes)].astype(np.int64),
    }


def lists_bounded(stored: Mapping[str, npt.NDArray[Any]]) -> bool:
    """Whether a stored trigram index's lists (``stored_lists``) bound what they read: one
    offset more than keys in each array of offsets, the last one its array's end."""
    keys = len(stored["keys"])
    return all(
        len(stored[offsets]) == keys + 1 and int(stored[offsets][-1]) == len(stored[lists])
        for offsets, lists in (("offsets", "postings"), ("deflated_offsets", "deflated"))
    )


INFLATED_ENTRIES = 1 << 20
"""A slice keeps the lists it inflated last, up to this many entries (4 MB): searches
share their common trigrams, and at 10k documents such a cache left 16 % of the entries
to inflate again (DECISIONS D185)."""


def _inflate(blob: memoryview) -> npt.NDArray[np.int32]:
    planes = np.frombuffer(zlib.decompress(blob), np.uint8).reshape(4, -1)
    gaps = planes[0].astype(np.uint32)
    for plane in range(1, 4):  # four times faster than a transposing copy
        gaps |= planes[plane].astype(np.uint32) << (8 * plane)
    return np.cumsum(gaps, dtype=np.uint32).view(np.int32)  # entries < 2**31


class TrigramLists:
    """The posting lists of a slice's trigram index, by key: as ``index_arrays`` builds
    them, or as a slice stores them (``stored_lists``: the short ones inflated when read,
    the last ``INFLATED_ENTRIES`` of them kept).
    """

    def __init__(self, arrays: Mapping[str, npt.NDArray[Any]]) -> None:
        self.keys: npt.NDArray[np.int64] = arrays["keys"]
        self._offsets: npt.NDArray[np.int64] = arrays["offsets"]
        self._postings: npt.NDArray[np.int32] = arrays["postings"]
        none = np.zeros(len(self.keys) + 1, dtype=np.int64)  # as built: none deflated
        self._deflated = arrays.get("deflated", np.zeros(0, dtype=np.uint8))
        self._deflated_offsets = arrays.get("deflated_offsets", none)
        self._inflated: OrderedDict[int, npt.NDArray[np.int32]] = OrderedDict()
        self._held = 0  # entries in _inflated
        self._lock = threading.Lock()

    def posting(self, key: int) -> npt.NDArray[np.int32]:
        """The entries (ascending) of the tokens holding the trigram *key*."""
        at = int(np.searchsorted(self.keys, key))
        if at == len(self.keys) or int(self.keys[at]) != key:
            return np.zeros(0, dtype=np.int32)
        start, end = int(self._deflated_offsets[at]), int(self._deflated_offsets[at + 1])
        if end == start:
            return self._postings[self._offsets[at] : self._offsets[at + 1]]
        with self._lock:
            found = self._inflated.get(at)
            if found is not None:
                self._inflated.move_to_end(at)
                return found
        found = _inflate(self._deflated[start:end].data)  # outside the lock: a race
        found.flags.writeable = False  # inflates twice, harmlessly; shared, so read-only
        with self._lock:
            if at not in self._inflated:
                self._inflated[at] = found
                self._held += len(found)
            while self._held > INFLATED_ENTRIES:
                self._held -= len(self._inflated.popitem(last=False)[1])
        return found
