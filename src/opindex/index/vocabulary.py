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
from itertools import accumulate, repeat
from operator import add
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
    def empty(cls) -> _Joined:
        return cls("\n", array("q", [1]))

    def extended(self, terms: list[str]) -> _Joined:
        # Every step runs in C (map/accumulate/join): 200k terms take milliseconds.
        starts = array("q", self.starts)
        offset = starts.pop()
        starts.extend(accumulate(map(add, map(len, terms), repeat(1)), initial=offset))
        added = "\n".join(terms) + "\n" if terms else ""
        return _Joined(self.text + added, starts)

    def term(self, index: int) -> str:
        return self.text[self.starts[index] : self.starts[index + 1] - 1]


class Vocabulary:
    """Distinct terms of the index (terms of deleted documents may linger: harmless).

    Immutable: extended() returns a new vocabulary, so readers never see a half update.
    """

    def __init__(self, terms: Iterable[str] = ()) -> None:
        self._original = _Joined.empty()
        self._folded = self._original
        self.size = 0
        self._add(list(terms))

    def _add(self, terms: list[str]) -> None:
        terms = list(filter(None, terms))
        if sum(map(len, terms)) != len("".join(terms).replace("\n", "")):
            terms = [t for t in terms if "\n" not in t]  # a term never holds a newline
        folded = list(map(fold, terms))
        original = self._original.extended(terms)
        if self._folded is self._original and folded == terms:
            self._folded = original  # folding changes nothing: share the text
        else:
            self._folded = self._folded.extended(folded)
        self._original = original
        self.size += len(terms)

    def extended(self, terms: Iterable[str]) -> Vocabulary:
        """A new vocabulary with *terms* added (no check for duplicates)."""
        new = Vocabulary()
        new._original, new._folded, new.size = self._original, self._folded, self.size
        new._add(list(terms))
        return new

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
