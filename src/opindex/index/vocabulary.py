"""The term dictionary of an index in memory, for substring lookups at C speed.

Tantivy can find terms containing a string only with an infix regex, whose cost grows
with the term dictionary (~50 ms per field at 200k terms). Here every term is folded
(casefold) and joined into one newline-separated string; ``str.find`` walks it, and a
bisect over the term start offsets maps each hit back to its original term.
"""

from __future__ import annotations

from array import array
from bisect import bisect_right
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

Anchor = Literal["anywhere", "start", "end", "whole"]


def fold(text: str) -> str:
    """The case-folded form used on both sides of a vocabulary lookup."""
    return text.casefold()


@dataclass(frozen=True, slots=True)
class _Joined:
    text: str  # "\n" + "\n".join(terms) + "\n"
    starts: array[int]  # start offset of term i, then a sentinel len(text)

    @classmethod
    def of(cls, terms: list[str]) -> _Joined:
        starts = array("q")
        offset = 1
        for term in terms:
            starts.append(offset)
            offset += len(term) + 1
        starts.append(offset)
        return cls("\n" + "\n".join(terms) + "\n" if terms else "\n", starts)

    def term(self, index: int) -> str:
        return self.text[self.starts[index] : self.starts[index + 1] - 1]


class Vocabulary:
    """Every distinct term of one index field (including terms of deleted documents)."""

    def __init__(self, terms: Iterable[str]) -> None:
        original = [t for t in terms if t and "\n" not in t]
        folded = [fold(t) for t in original]
        self._original = _Joined.of(original)
        self._folded = self._original if folded == original else _Joined.of(folded)
        self.size = len(original)

    def find(
        self, piece: str, anchor: Anchor = "anywhere", limit: int | None = None
    ) -> list[str] | None:
        """Terms whose folded form contains / starts with / ends with / equals fold(piece).

        Returns None when more than *limit* terms match (the caller then treats the
        piece as unselective). An empty piece matches every term.
        """
        needle = fold(piece)
        if "\n" in needle:
            return []
        if not needle:
            if limit is not None and self.size > limit:
                return None
            return [self._original.term(i) for i in range(self.size)]
        lead = anchor in ("start", "whole")
        if lead:
            needle = "\n" + needle
        if anchor in ("end", "whole"):
            needle = needle + "\n"
        text, starts = self._folded.text, self._folded.starts
        found: list[str] = []
        position = text.find(needle)
        while position != -1:
            index = bisect_right(starts, position + 1 if lead else position) - 1
            found.append(self._original.term(index))
            if limit is not None and len(found) > limit:
                return None
            position = text.find(needle, starts[index + 1] - 1)
        return found

    def nbytes(self) -> int:
        """Approximate memory held by this vocabulary."""
        total = len(self._original.text) + self._original.starts.itemsize * len(
            self._original.starts
        )
        if self._folded is not self._original:
            total += len(self._folded.text) * 2
        return total
