"""The time frame of a generated corpus: when its content starts, spans and is stamped."""

from __future__ import annotations

from datetime import UTC, datetime

EPOCH = datetime(2025, 1, 6, 8, 0, tzinfo=UTC)  # earliest createdAt of generated content
HISTORY_DAYS = 600  # content is created over this many days after EPOCH
FUTURE_START = datetime(2027, 1, 11, 9, 0, tzinfo=UTC)  # "upcoming" meetings start from here


def stamp(value: datetime) -> str:
    """A corpus timestamp (UTC, whole seconds, ``Z``)."""
    return value.replace(microsecond=0).isoformat().replace("+00:00", "Z")
