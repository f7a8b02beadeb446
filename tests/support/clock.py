"""The injectable test clock: real time plus an offset a test moves forward (no sleeping)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta


@dataclass
class Clock:
    """Real time plus ``offset``; pass it wherever opindex takes a ``clock``."""

    offset: timedelta = field(default_factory=timedelta)

    def __call__(self) -> datetime:
        return datetime.now(UTC) + self.offset

    def advance(self, **delta: float) -> None:
        """Move the clock forward, e.g. ``advance(hours=2)``."""
        self.offset += timedelta(**delta)
