"""Warning lines about refused webhook deliveries, at most one per tenant and kind per interval.

Anyone who can reach a webhook path can send forged deliveries; each is refused and
counted, but logging each would let a sender fill the log. The first refusal of a tenant
is logged at once; later ones within ``interval`` seconds are only counted, and the next
line logged says how many were left out.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass

REFUSAL_LOG_INTERVAL_SECONDS = 60.0
"""At most one refusal warning per tenant in this many seconds."""

Clock = Callable[[], float]


@dataclass
class _Window:
    logged_at: float
    suppressed: int = 0


class ThrottledWarnings:
    """Log a warning per key, at most once per ``interval`` seconds of ``clock``."""

    def __init__(
        self,
        logger: logging.Logger,
        *,
        interval: float = REFUSAL_LOG_INTERVAL_SECONDS,
        clock: Clock = time.monotonic,
    ) -> None:
        self._logger = logger
        self._interval = interval
        self._clock = clock
        self._windows: dict[str, _Window] = {}

    def warn(self, key: str, message: str) -> bool:
        """Log *message* unless a line for *key* was logged less than the interval ago
        (then only count it). True when the line was logged."""
        now = self._clock()
        window = self._windows.get(key)
        if window is not None and now - window.logged_at < self._interval:
            window.suppressed += 1
            return False
        left_out = window.suppressed if window is not None else 0
        note = f" ({left_out} more since the last such line, not logged)" if left_out else ""
        self._logger.warning("%s%s", message, note)
        self._windows[key] = _Window(logged_at=now)
        return True
