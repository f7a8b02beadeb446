"""Time: the clock every component takes (injectable in tests), and caller-given moments parsed."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, date, datetime

from opindex.errors import InvalidArgumentError

Clock = Callable[[], datetime]
"""What components read the time from; tests inject a controllable one."""


def utc_now() -> datetime:
    """The real clock: the current time, timezone-aware in UTC."""
    return datetime.now(UTC)


def parse_moment(text: str | None, argument: str) -> datetime | None:
    """*text* as an aware UTC datetime (None for None or blank).

    Accepts ``2026-03-01`` (midnight UTC), ``2026-03-01T09:30``, ``2026-03-01T09:30:00Z``
    and offsets (``+02:00``); a time without an offset is UTC. Anything else, or a moment
    that falls outside years 1-9999 in UTC, is an ``InvalidArgumentError`` naming
    *argument* and showing the accepted forms.
    """
    if text is None or not text.strip():
        return None
    cleaned = text.strip()
    try:
        if len(cleaned) == 10:
            return datetime.combine(date.fromisoformat(cleaned), datetime.min.time(), tzinfo=UTC)
        parsed = datetime.fromisoformat(cleaned)
    except ValueError:
        raise InvalidArgumentError(
            f"{argument}: {text!r} is not an ISO date or datetime; use e.g. '2026-03-01' or "
            "'2026-03-01T09:30:00Z'"
        ) from None
    if parsed.tzinfo is None:
        return parsed.replace(tzinfo=UTC)
    try:
        return parsed.astimezone(UTC)
    except OverflowError:  # e.g. 0001-01-01T00:00:00+14:00: before year 1 in UTC
        raise InvalidArgumentError(
            f"{argument}: {text!r} lies outside the years 1 to 9999 once converted to UTC; "
            "give a moment between 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z"
        ) from None
