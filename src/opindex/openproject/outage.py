"""Remembering that OpenProject could not be reached, so that callers fail fast for a while.

Without it, every search answered while OpenProject is down spends the whole retry budget
(seconds) before the stale index answers. After a request fails for good with a network
error, a timeout or a 502/503/504, the session refuses further requests for ``cooldown``
seconds with the same error type; the first request after that tries again.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from opindex.errors import UpstreamUnavailableError


class OutageMemory:
    """The last time OpenProject could not be reached, and why."""

    def __init__(self, cooldown: float, monotonic: Callable[[], float] = time.monotonic) -> None:
        self.cooldown = cooldown
        self._monotonic = monotonic
        self._since: float | None = None
        self._reason = ""

    def check(self, base_url: str) -> None:
        """Raise UpstreamUnavailableError while a recent outage is remembered."""
        if self._since is None:
            return
        elapsed = self._monotonic() - self._since
        if elapsed >= self.cooldown:
            return  # try again; failed() or recovered() will follow
        raise UpstreamUnavailableError(
            f"OpenProject at {base_url} was unreachable {elapsed:.0f} s ago ({self._reason}); "
            f"not asking again for another {self.cooldown - elapsed:.0f} s"
        )

    def failed(self, reason: str) -> None:
        """Remember that a request failed for good because OpenProject was unreachable."""
        self._since = self._monotonic()
        self._reason = reason

    def recovered(self) -> None:
        """OpenProject answered: forget the outage."""
        self._since = None
