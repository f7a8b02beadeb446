"""Freshness routing: which path (index or live) answers a search, given the index's age."""

from __future__ import annotations

from dataclasses import dataclass

from opindex.envelope import AnsweredBy, Source
from opindex.errors import (
    IndexMissingError,
    IndexUnavailableError,
    ServerError,
    UpstreamUnavailableError,
)
from opindex.sync import Freshness


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
    """Apply the freshness policy (ARCHITECTURE invariant 5) to one request.

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
