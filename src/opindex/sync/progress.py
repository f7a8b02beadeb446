"""Progress of a running sync: counts per kind and rate, rendered on a terminal or dropped."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Protocol, TextIO

from opindex.search import KIND_LABELS, KINDS, Kind

ALWAYS_SHOWN: frozenset[Kind] = frozenset({"work_package", "wiki_page", "meeting"})
"""Kinds the progress line counts from the start; the others appear once they have one."""


class SyncProgress(Protocol):
    """What a sync reports while it runs; implementations must be cheap and never raise."""

    def phase(self, tenant: str, phase: str) -> None:
        """A new step began (e.g. ``work packages``, ``sweep``, ``commit``)."""

    def documents(self, kind: Kind, count: int) -> None:
        """``count`` more documents of ``kind`` were read from OpenProject."""

    def done(self) -> None:
        """The sync of the current tenant ended (successfully or not)."""


class NullProgress:
    """Reports nothing (library default, ``--quiet``, non-terminal output)."""

    def phase(self, tenant: str, phase: str) -> None:
        """Ignore the phase."""

    def documents(self, kind: Kind, count: int) -> None:
        """Ignore the count."""

    def done(self) -> None:
        """Nothing to finish."""


class TerminalProgress:
    """One self-overwriting status line on a terminal stream (stderr), redrawn at most
    every ``min_interval`` seconds: tenant, phase, documents per kind, documents/s."""

    def __init__(
        self,
        stream: TextIO,
        *,
        min_interval: float = 0.25,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._stream = stream
        self._min_interval = min_interval
        self._clock = clock
        self._tenant = ""
        self._phase = ""
        self._counts: dict[Kind, int] = dict.fromkeys(KINDS, 0)
        self._started = clock()
        self._last_draw = float("-inf")
        self._width = 0

    def phase(self, tenant: str, phase: str) -> None:
        """Show the new phase at once."""
        if tenant != self._tenant:
            self._tenant = tenant
            self._counts = dict.fromkeys(KINDS, 0)
            self._started = self._clock()
        self._phase = phase
        self._draw(force=True)

    def documents(self, kind: Kind, count: int) -> None:
        """Add to the count; redraw if the last draw is old enough."""
        self._counts[kind] += count
        self._draw(force=False)

    def done(self) -> None:
        """Draw the final figures and end the line."""
        self._draw(force=True)
        if self._width:
            self._stream.write("\n")
            self._stream.flush()
        self._width = 0

    def line(self) -> str:
        """The status line as it would be drawn now."""
        elapsed = max(self._clock() - self._started, 1e-9)
        total = sum(self._counts.values())
        shown = [k for k in KINDS if k in ALWAYS_SHOWN or self._counts[k]]
        counts = " · ".join(f"{KIND_LABELS[k][1]} {self._counts[k]}" for k in shown)
        return f"{self._tenant}: {self._phase} | {counts} | {total / elapsed:.0f} docs/s"

    def _draw(self, *, force: bool) -> None:
        now = self._clock()
        if not force and now - self._last_draw < self._min_interval:
            return
        self._last_draw = now
        text = self.line()
        padding = " " * max(0, self._width - len(text))
        self._width = len(text)
        try:
            self._stream.write("\r" + text + padding)
            self._stream.flush()
        except (OSError, ValueError):  # a closed or broken terminal must not break a sync
            pass
