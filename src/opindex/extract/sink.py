"""The text collected from one file, bounded by characters and wall time (TextSink, Stop)."""

from __future__ import annotations

import re
import time

from opindex.extract.outcome import Outcome, Reason

_LINE_BREAKS = re.compile(r"[\x0b\x0c\x85\u2028\u2029]")
_CONTROLS = re.compile(r"[\x00-\x08\x0e-\x1f\x7f\ufffe\uffff]")
_ODD_BLANKS = re.compile(r"[\t\xa0]")
_SPACE_RUNS = re.compile(r" {2,}")  # a literal prefix: the engine skips ahead fast
_EMPTY_LINES = re.compile(r"\n{3,}")


class Stop(Exception):
    """Ends one extraction early with an outcome; only ``extract_text`` catches it."""

    def __init__(self, outcome: Outcome, reason: Reason, detail: str | None = None) -> None:
        super().__init__(f"{outcome}/{reason}")
        self.outcome = outcome
        self.reason = reason
        self.detail = detail


def clean(piece: str) -> str:
    """One line-break convention, no control characters, runs of blanks as one space,
    no blank at either end of a line. (Each step is a fast scan for rare characters.)"""
    if "\r" in piece:
        piece = piece.replace("\r\n", "\n").replace("\r", "\n")
    piece = _LINE_BREAKS.sub("\n", piece)
    piece = _CONTROLS.sub("", piece)
    piece = _ODD_BLANKS.sub(" ", piece)
    piece = _SPACE_RUNS.sub(" ", piece)
    return piece.replace(" \n", "\n").replace("\n ", "\n")


class TextSink:
    """Collects text pieces; raises :class:`Stop` when the character budget or the
    deadline is spent (the text kept so far stays available)."""

    def __init__(self, max_chars: int, max_seconds: float) -> None:
        self._max_chars = max_chars
        self._deadline = time.monotonic() + max_seconds
        self._pieces: list[str] = []
        self._chars = 0
        self.pages: int | None = None
        """Pages read, for paged formats (PDF)."""

    @property
    def chars(self) -> int:
        """Characters collected so far (before the final whitespace tidy-up)."""
        return self._chars

    def add(self, piece: str) -> None:
        """Append ``piece``; past the budget, keep what fits and stop (``text_limit``)."""
        if not piece:
            return
        room = self._max_chars - self._chars
        if len(piece) > room:
            self._pieces.append(piece[:room])
            self._chars = self._max_chars
            raise Stop(Outcome.TRUNCATED, Reason.TEXT_LIMIT)
        self._pieces.append(piece)
        self._chars += len(piece)

    def check_time(self) -> None:
        """Stop (``timeout``) once the deadline has passed."""
        if time.monotonic() >= self._deadline:
            raise Stop(Outcome.TRUNCATED, Reason.TIMEOUT)

    def text(self) -> str:
        """The collected text with tidy whitespace: single spaces, at most one blank line."""
        text = clean("".join(self._pieces))
        return _EMPTY_LINES.sub("\n\n", text).strip()
