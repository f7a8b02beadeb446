"""Freshness routing: which path (index or live) answers a search, given the index's age."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from opindex.envelope import AnsweredBy, IndexState, Source
from opindex.errors import (
    IndexMissingError,
    IndexUnavailableError,
    ServerError,
    UpstreamUnavailableError,
)

Clock = Callable[[], datetime]
"""Returns the current time as an aware datetime; injected so tests control freshness."""


def system_clock() -> datetime:
    """The real clock (UTC)."""
    return datetime.now(UTC)


@dataclass(frozen=True, slots=True)
class Freshness:
    """How fresh a tenant's index is at one instant.

    ``state`` is ``missing`` when no successful sync ever completed (no index to read),
    ``fresh`` when the last successful sync is younger than the tenant's max staleness,
    ``stale`` otherwise (also when an index exists but its age cannot be read).
    ``problem`` says, in words for the caller, what could not be read, if anything.
    """

    state: IndexState
    indexed_at: datetime | None = None
    age_seconds: float | None = None
    problem: str | None = None

    @property
    def has_index(self) -> bool:
        """True when an index exists to read, fresh or not."""
        return self.state != "missing"


def assess_freshness(
    indexed_at: datetime | None, *, max_staleness: timedelta, now: datetime
) -> Freshness:
    """Classify an index by the time of its last successful sync (``None``: never synced)."""
    if indexed_at is None:
        return Freshness("missing")
    if indexed_at.tzinfo is None:
        indexed_at = indexed_at.replace(tzinfo=UTC)
    age = max(0.0, (now - indexed_at).total_seconds())
    state: IndexState = "fresh" if age < max_staleness.total_seconds() else "stale"
    return Freshness(state, indexed_at, age)


@dataclass(frozen=True, slots=True)
class Route:
    """The path chosen for one search.

    ``path`` answers first. ``stale_fallback`` says whether a live failure caused by
    upstream unavailability may be answered from the (stale) index instead.
    """

    path: AnsweredBy
    freshness: Freshness
    stale_fallback: bool = False


def choose_route(source: Source, freshness: Freshness) -> Route:
    """Apply the freshness policy (ARCHITECTURE "Freshness policy") to one request.

    - ``auto``: fresh → index; stale → live, with the stale index as the fallback when
      OpenProject is unreachable; missing → live.
    - ``index``: the index whatever its age; raises ``IndexUnavailableError`` if missing.
    - ``live``: always live, never the index.
    """
    if source == "live":
        return Route("live", freshness)
    if source == "index":
        if not freshness.has_index:
            if freshness.problem is not None:  # already written for a remote client
                unreadable = IndexUnavailableError(
                    f"{freshness.problem}; run `opindex rebuild` or search with source 'live'"
                )
                unreadable.public = str(unreadable)
                raise unreadable
            raise IndexMissingError(
                "this tenant has no index yet; run `opindex sync` or search with source 'live'"
            )
        return Route("index", freshness)
    if freshness.state == "fresh":
        return Route("index", freshness)
    return Route("live", freshness, stale_fallback=freshness.has_index)


def is_upstream_unavailable(error: BaseException) -> bool:
    """True for failures that mean OpenProject could not answer (network, timeout, 5xx)."""
    return isinstance(error, UpstreamUnavailableError | ServerError)
