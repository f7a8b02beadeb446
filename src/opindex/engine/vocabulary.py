"""Substring look-ups in the analysis store's vocabulary, at C speed.

Tantivy can find terms containing a string only with an infix regex, whose cost grows
with the term dictionary (~50 ms per field at 200k terms). The analysis store already
holds every token once, in vocabulary slices whose text is ``"\\n" + "\\n".join(tokens) +
"\\n"`` (``TokenIndex.joined``); ``str.find`` walks each slice's case-folded text
(``TokenIndex.folded``, the text itself when folding changes nothing) and each hit is
mapped back to its token by its position (DECISIONS D180).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Literal

import numpy as np
import numpy.typing as npt

from opindex.engine.token_index import TokenIndex

Anchor = Literal["anywhere", "start", "end", "whole"]
IntArray = npt.NDArray[np.int64]


def fold(text: str) -> str:
    """The case-folded form used on both sides of a vocabulary lookup."""
    return text.casefold()


class Vocabulary:
    """Every token of a generation's analysis store (all kinds, all fields), as its
    vocabulary slices hold them; tokens of deleted records may linger (harmless).

    Immutable: a commit's view has a vocabulary of its own slices."""

    def __init__(self, slices: Sequence[TokenIndex]) -> None:
        self._slices = tuple(index for index in slices if index.size)
        self.size = sum(index.size for index in self._slices)

    @classmethod
    def of(cls, terms: Iterable[str]) -> Vocabulary:
        """A vocabulary of *terms* (distinct, no newlines), as one slice."""
        listed = list(terms)
        return cls([TokenIndex("\n" + "".join(t + "\n" for t in listed))])

    def find_ids(
        self, piece: str, anchor: Anchor = "anywhere", limit: int | None = None
    ) -> IntArray | None:
        """The token ids (ascending) whose folded form contains / starts with / ends with /
        equals fold(piece); None when more than *limit* match (the caller then treats the
        piece as unselective). An empty piece matches every token."""
        needle = fold(piece)
        if "\n" in needle:
            return np.zeros(0, dtype=np.int64)
        if not needle:
            if limit is not None and self.size > limit:
                return None
            ranges = [np.arange(i.base, i.base + i.size, dtype=np.int64) for i in self._slices]
            return np.concatenate(ranges) if ranges else np.zeros(0, dtype=np.int64)
        lead, ends = anchor in ("start", "whole"), anchor in ("end", "whole")
        needle = ("\n" if lead else "") + needle + ("\n" if ends else "")
        budget = None if limit is None else limit + 1
        found: list[IntArray] = []
        for index in self._slices:
            hits = _hits(index, needle, lead, ends, budget)
            found.append(hits + index.base)
            if budget is not None:
                budget -= len(hits)
                if budget <= 0:
                    return None
        return np.concatenate(found) if found else np.zeros(0, dtype=np.int64)

    def find(
        self, piece: str, anchor: Anchor = "anywhere", limit: int | None = None
    ) -> list[str] | None:
        """``find_ids`` as the tokens' texts."""
        ids = self.find_ids(piece, anchor, limit)
        if ids is None:
            return None
        return [self._text(int(token)) for token in ids]

    def _text(self, token: int) -> str:
        for index in self._slices:
            if index.base <= token < index.base + index.size:
                return index.token(token - index.base)
        raise KeyError(token)


def _hits(index: TokenIndex, needle: str, lead: bool, ends: bool, budget: int | None) -> IntArray:
    """Local ids (ascending, each once) of the tokens of one slice holding *needle*
    (framed by newlines where anchored), at most *budget* of them."""
    text, starts = index.folded()
    positions: list[int] = []
    step = len(needle) - 1  # from a hit to the newline ending its token (when *ends*)
    position = text.find(needle)
    while position != -1:
        positions.append(position)
        if budget is not None and len(positions) >= budget:
            break
        end = position + step if ends else text.find("\n", position + len(needle))
        position = text.find(needle, end)  # the token's own newline may start the next
    # a hit starts inside its token, or (anchored at the start) at the newline before it
    at = np.asarray(positions, dtype=np.int64) + (1 if lead else 0)
    return np.searchsorted(starts, at, side="right").astype(np.int64) - 1
