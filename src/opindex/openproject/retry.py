"""When to retry a request to OpenProject and how long to wait before the next attempt."""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

from opindex.errors import ConfigError

# 429 and 503 are the throttling/overload answers; 502 and 504 come from reverse proxies
# when OpenProject itself is briefly unreachable, which is the same situation as a network
# error. 401/403/404 (and every other status) are never retried.
RETRYABLE_STATUSES = frozenset({429, 502, 503, 504})

# A RateLimit-Reset above this is an epoch timestamp (OpenProject's rate limiter sends
# epoch seconds); below it, a number of seconds (the IETF draft's meaning).
_EPOCH_THRESHOLD = 1_000_000_000


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """Bounds for retrying throttled, overloaded or unreachable requests.

    ``max_attempts`` counts the first try. A wait requested by the server that is longer
    than ``max_delay``, or that would push the total wait of one request beyond
    ``max_total_wait``, is not waited for: the request fails with the typed error instead.
    Exponential backoff (no server hint) is ``base_delay * 2**(n-1)`` capped at
    ``max_delay``, reduced by up to ``jitter`` (a fraction) at random.
    """

    max_attempts: int = 4
    base_delay: float = 0.5
    max_delay: float = 30.0
    max_total_wait: float = 60.0
    jitter: float = 0.5

    def __post_init__(self) -> None:
        if self.max_attempts < 1:
            raise ConfigError("retry max_attempts must be at least 1")
        if self.base_delay < 0 or self.max_delay < 0 or self.max_total_wait < 0:
            raise ConfigError("retry delays must not be negative")
        if not 0.0 <= self.jitter <= 1.0:
            raise ConfigError("retry jitter must be between 0 and 1")

    def backoff(self, attempt: int, rand: Callable[[], float] = random.random) -> float:
        """The exponential wait after failed attempt number *attempt* (1-based)."""
        capped = min(self.max_delay, self.base_delay * (2.0 ** max(attempt - 1, 0)))
        return capped * (1.0 - self.jitter * rand())


NO_RETRY = RetryPolicy(max_attempts=1)


def server_requested_delay(headers: Mapping[str, str], now: float) -> float | None:
    """Seconds the server asked us to wait: ``Retry-After``, else ``RateLimit-Reset``.

    ``Retry-After`` may be delta-seconds or an HTTP date. ``RateLimit-Reset`` may be an epoch
    timestamp or delta-seconds. Unparseable values are ignored (``None``); values in the
    past become 0.
    """
    retry_after = _header(headers, "retry-after")
    if retry_after is not None:
        delay = _parse_retry_after(retry_after, now)
        if delay is not None:
            return delay
    reset = _header(headers, "ratelimit-reset")
    if reset is not None:
        try:
            value = float(reset)
        except ValueError:
            return None
        if not math.isfinite(value):
            return None
        return max(0.0, value - now) if value >= _EPOCH_THRESHOLD else max(0.0, value)
    return None


def _header(headers: Mapping[str, str], name: str) -> str | None:
    for key, value in headers.items():
        if key.lower() == name:
            return value.strip()
    return None


def _parse_retry_after(value: str, now: float) -> float | None:
    try:
        seconds = float(value)
    except ValueError:
        seconds = None
    if seconds is not None:
        if not math.isfinite(seconds):
            return None
        return max(0.0, seconds)
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, when.timestamp() - now)


def current_time() -> float:
    """Wall-clock seconds since the epoch (the default clock for RateLimit-Reset)."""
    return datetime.now(UTC).timestamp()
