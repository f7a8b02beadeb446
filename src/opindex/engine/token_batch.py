"""The rule table (``score.score_token``) over a batch of vocabulary tokens, as arrays.

``TokenIndex`` narrows a vocabulary to a superset of the tokens a query alternative can
score above 0, often thousands of them; scoring them one by one in Python, or building a
string for each to measure its edit distance, costs tens of milliseconds. Here the
tokens are a matrix of code points (one row per token, zero-padded: normalized tokens
hold no NUL) and every rule is an array operation over all rows at once:

- exact, starts with, contains: comparisons of the query's code points with the rows
  (at each offset, for contains);
- shared prefix: the length of the leading run of equal code points;
- edit distance: Myers' bit-parallel algorithm in Hyyrö's form for the distance of two
  whole strings (query of at most 64 code points: one bit each in a uint64), one
  column of the matrix per step for all rows together.

The scores are computed with the same floating-point operations in the same order as
``score_token`` (``1 - (d / len(q)) * 0.6``; ``0.55 + 0.25 * shared / longer``), so they
are equal to the last bit; ``tests/search/test_token_batch.py`` checks it.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from opindex.search import (
    CONTAINS_SCORE,
    EDIT_PENALTY,
    EXACT_SCORE,
    PREFIX_SCORE,
    SHARED_PREFIX_BASE,
    SHARED_PREFIX_MIN,
    SHARED_PREFIX_SPAN,
    edit_budget,
)

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
CodeMatrix = npt.NDArray[Any]
"""Code points of a batch of tokens, one row each, zero-padded (unsigned integers)."""

MAX_PATTERN = 64
"""Longest query token the bit-parallel edit distance takes (bits of a uint64)."""
MAX_WIDTH = 64
"""Longest vocabulary token put in a matrix (longer ones are scored one by one)."""
CONTAINS_MIN = 4
"""Shortest query token the contains rule applies to (``score_token``)."""


def code_points(text: str) -> npt.NDArray[Any]:
    """The code points of *text* in the narrowest unsigned dtype that holds them all."""
    if text.isascii():
        return np.frombuffer(text.encode("ascii"), dtype=np.uint8)
    wide = np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32)
    top = int(wide.max()) if len(wide) else 0
    return wide.astype(np.uint8 if top < 0x100 else np.uint16 if top < 0x10000 else np.uint32)


def code_matrix(codes: npt.NDArray[Any], starts: IntArray, lengths: IntArray) -> CodeMatrix:
    """The tokens ``codes[start:start + length]`` as the rows of a zero-padded matrix."""
    width = int(lengths.max()) if len(lengths) else 0
    # positions in int32 where they fit (half the memory to write and read), clipped to
    # the end in place; the cells past each token are zeroed after the gather
    dtype: type[np.signedinteger[Any]] = np.int32 if len(codes) + width < (1 << 31) else np.int64
    columns: npt.NDArray[np.signedinteger[Any]] = np.arange(width, dtype=dtype)
    at: npt.NDArray[np.signedinteger[Any]] = starts.astype(dtype)[:, None] + columns
    np.minimum(at, max(len(codes) - 1, 0), out=at)
    matrix: CodeMatrix = codes[at]
    matrix[columns >= lengths[:, None]] = 0
    return matrix


def _lane(size: int) -> type[np.unsignedinteger[Any]]:
    """The narrowest unsigned dtype with a bit for each of *size* query code points."""
    for dtype in (np.uint8, np.uint16, np.uint32):
        if size <= np.dtype(dtype).itemsize * 8:
            return dtype
    return np.uint64


def _equal_masks(query: str, matrix: CodeMatrix, lane: type[Any]) -> npt.NDArray[Any]:
    """Per cell of *matrix*: the bits of the query positions holding its code point."""
    symbols = sorted(set(query))
    keys = np.array([ord(symbol) for symbol in symbols], dtype=np.int64)
    masks = np.zeros(len(symbols), dtype=lane)
    for position, character in enumerate(query):
        masks[symbols.index(character)] |= lane(1 << position)
    if matrix.dtype.itemsize <= 2:  # a lookup table over every code point of the dtype
        table = np.zeros(1 << (8 * matrix.dtype.itemsize), dtype=lane)
        fits = keys < len(table)
        table[keys[fits]] = masks[fits]
        found: npt.NDArray[Any] = table[matrix]
        return found
    at = np.minimum(np.searchsorted(keys, matrix), len(keys) - 1)
    return np.where(keys[at] == matrix, masks[at], lane(0))


def edit_distances(query: str, matrix: CodeMatrix, lengths: IntArray) -> IntArray:
    """The Levenshtein distance of *query* (1 to MAX_PATTERN code points) to each row.

    Every row runs over every column (the padding too); a row's distance is the score
    after its own last column."""
    size = len(query)
    if not 0 < size <= MAX_PATTERN:
        raise ValueError(f"query of {size} code points: the distance takes 1 to {MAX_PATTERN}")
    rows = len(matrix)
    lane = _lane(size)
    equal_masks = _equal_masks(query, matrix, lane)
    last, one = lane(1 << (size - 1)), lane(1)
    positive = np.full(rows, (1 << size) - 1, dtype=lane)
    negative = np.zeros(rows, dtype=lane)
    score = np.full(rows, size, dtype=np.int64)
    distances = np.full(rows, size, dtype=np.int64)  # rows of length 0 (none in practice)
    for column in range(matrix.shape[1] if rows else 0):
        equal = equal_masks[:, column]
        vertical = equal | negative
        horizontal = (((equal & positive) + positive) ^ positive) | equal
        up = negative | ~(horizontal | positive)
        down = positive & horizontal
        score += (up & last) != 0  # up and down never share a bit
        score -= (down & last) != 0
        up = (up << one) | one
        down = down << one
        positive = down | ~(vertical | up)
        negative = up & vertical
        ending = lengths == column + 1
        distances[ending] = score[ending]
    return distances


def _shared_prefix(query: npt.NDArray[np.int64], matrix: CodeMatrix) -> IntArray:
    """Per row, the length of its common prefix with *query* (padding never matches)."""
    width = min(len(query), matrix.shape[1])
    if width == 0:
        return np.zeros(len(matrix), dtype=np.int64)
    differs = matrix[:, :width] != query[:width]
    shared: IntArray = np.where(differs.any(axis=1), differs.argmax(axis=1), width)
    return shared.astype(np.int64)


def _contains(query: npt.NDArray[np.int64], matrix: CodeMatrix) -> npt.NDArray[np.bool_]:
    """Per row, whether *query* occurs in it: the cells holding its first code point where
    it could start, narrowed code point by code point."""
    size = len(query)
    rows, width = matrix.shape
    found = np.zeros(rows, dtype=bool)
    if width < size:
        return found
    row, column = np.nonzero(matrix[:, : width - size + 1] == query[0])
    for offset in range(1, size):
        keep = matrix[row, column + offset] == query[offset]
        row, column = row[keep], column[keep]
    found[row] = True
    return found


def contains_token(token: str, matrix: CodeMatrix) -> npt.NDArray[np.bool_]:
    """Per row of *matrix*, whether *token* occurs in it."""
    return _contains(np.array([ord(character) for character in token], dtype=np.int64), matrix)


def batch_scores(
    token: str,
    prefix: bool,
    matrix: CodeMatrix,
    lengths: IntArray,
    distances: IntArray | None = None,
    contains: npt.NDArray[np.bool_] | None = None,
) -> FloatArray:
    """``alternative_score(Alternative(token, prefix), row)`` for each row of *matrix*.

    *token* must hold 1 to MAX_PATTERN code points; *lengths* are the rows' token
    lengths. *distances*: each row's edit distance to *token* when the caller knows it
    (any value past the edit budget where it is past it); else computed here for the
    rows within the budget in length. *contains*: whether each row holds *token*, when
    the caller knows it. With both, *matrix* need hold only each row's first
    ``len(token)`` code points."""
    size = len(token)
    query = np.array([ord(character) for character in token], dtype=np.int64)
    shared = _shared_prefix(query, matrix)
    starts = shared == size
    scores = np.zeros(len(matrix), dtype=np.float64)
    budget = edit_budget(token)
    if budget:
        if distances is None:
            near = np.abs(lengths - size) <= budget
            distances = np.full(len(matrix), budget + 1, dtype=np.int64)
            distances[near] = edit_distances(token, matrix[near], lengths[near])
        within = distances <= budget
        scores[within] = 1.0 - (distances[within] / size) * EDIT_PENALTY
    if size >= SHARED_PREFIX_MIN:
        morph = shared >= SHARED_PREFIX_MIN
        longer = np.maximum(lengths[morph], size)
        scores[morph] = np.maximum(
            scores[morph], SHARED_PREFIX_BASE + SHARED_PREFIX_SPAN * shared[morph] / longer
        )
    if size >= CONTAINS_MIN:
        scores[_contains(query, matrix) if contains is None else contains] = CONTAINS_SCORE
    if size >= 3:
        scores[starts] = PREFIX_SCORE
    scores[starts & (lengths == size)] = EXACT_SCORE
    if prefix:
        scores[starts] = EXACT_SCORE
    return scores
