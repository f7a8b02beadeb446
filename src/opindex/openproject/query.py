"""Filters, sort order and select lists for API v3 collections, always serialized as JSON."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Literal

from opindex.errors import InvalidArgumentError

SortDirection = Literal["asc", "desc"]
SortBy = Sequence[tuple[str, SortDirection]]
FilterValue = str | int

# Operators documented in tags/filters.yml (value-less ones take ``null`` values).
KNOWN_OPERATORS = frozenset(
    {
        "=", "!", ">=", "<=", "t-", "t+", "<t+", ">t+", ">t-", "<t-", "*", "!*", "**",
        "=d", "<>d", "w", "t", "~", "!~", "o", "c", "ow",
    }
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class Filter:
    """One API v3 filter: ``{name: {"operator": op, "values": [...]}}``.

    Values are sent as strings (ids too); ``values=None`` is sent as ``null`` for value-less
    operators such as ``o`` (open) and ``c`` (closed).
    """

    name: str
    operator: str
    values: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        if not self.name or not self.name.strip():
            raise InvalidArgumentError("a filter needs a name")
        if self.operator not in KNOWN_OPERATORS:
            raise InvalidArgumentError(
                f"unknown filter operator {self.operator!r} for filter {self.name!r}"
            )
        if self.values is not None and not all(isinstance(v, str) for v in self.values):
            raise InvalidArgumentError(f"filter {self.name!r} values must be strings")

    @classmethod
    def of(cls, name: str, operator: str, values: Iterable[FilterValue] | None = None) -> Filter:
        """Build a filter, turning int values into the strings the API expects."""
        if values is None:
            return cls(name, operator, None)
        converted: list[str] = []
        for value in values:
            if isinstance(value, bool) or not isinstance(value, str | int):
                raise InvalidArgumentError(
                    f"filter {name!r} value {value!r} must be a string or an integer"
                )
            converted.append(str(value))
        return cls(name, operator, tuple(converted))

    def to_json_object(self) -> dict[str, dict[str, object]]:
        """The filter as the JSON object the API expects."""
        values = None if self.values is None else list(self.values)
        return {self.name: {"operator": self.operator, "values": values}}


def updated_since(moment: datetime, name: str = "updatedAt") -> Filter:
    """``updatedAt`` between *moment* (inclusive) and open end: "changed since"."""
    return Filter.of(name, "<>d", [iso_utc(moment), ""])


def equals(name: str, values: Iterable[FilterValue]) -> Filter:
    """``name = any of values``."""
    return Filter.of(name, "=", values)


def iso_utc(moment: datetime) -> str:
    """An aware datetime as ``YYYY-MM-DDTHH:MM:SSZ`` (UTC); naive datetimes are refused."""
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise InvalidArgumentError("datetimes sent to OpenProject must be timezone-aware")
    # isoformat, not strftime: strftime writes year 1 as "1", not "0001"
    utc = moment.astimezone(UTC).replace(microsecond=0, tzinfo=None)
    return utc.isoformat() + "Z"


def filters_json(filters: Sequence[Filter]) -> str:
    """The ``filters`` query parameter; ``[]`` for no filters (meaning "everything")."""
    return json.dumps([item.to_json_object() for item in filters], separators=(",", ":"))


def sort_by_json(sort_by: SortBy) -> str:
    """The ``sortBy`` query parameter."""
    pairs: list[list[str]] = []
    for entry in sort_by:
        if len(entry) != 2:
            raise InvalidArgumentError(f"sortBy entries are (property, direction), got {entry!r}")
        prop, direction = entry
        if not isinstance(prop, str) or not prop.strip():
            raise InvalidArgumentError("sortBy property must be a non-empty string")
        if direction not in ("asc", "desc"):
            raise InvalidArgumentError(f"sortBy direction must be asc or desc, got {direction!r}")
        pairs.append([prop, direction])
    return json.dumps(pairs, separators=(",", ":"))


def select_param(select: Sequence[str]) -> str:
    """The ``select`` parameter; ``total`` and ``elements/id`` are always included so that
    paging can stop and de-duplicate."""
    paths: list[str] = []
    for path in ("total", "elements/id", *select):
        if not isinstance(path, str) or not path.strip() or "," in path:
            raise InvalidArgumentError(f"invalid select path {path!r}")
        if path not in paths:
            paths.append(path)
    return ",".join(paths)
