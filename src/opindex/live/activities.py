"""Ranking the activities (comments) of one work package, client-side (spec §3.4)."""

from __future__ import annotations

from dataclasses import dataclass

from opindex.errors import InvalidArgumentError
from opindex.openproject import Activity, OpenProjectClient
from opindex.search import (
    DEFAULT_MIN_SCORE,
    FieldSpec,
    Ranked,
    parse_query,
    rank_records,
    validate_match_mode,
)

COMMENT_FIELD: tuple[FieldSpec[Activity], ...] = (
    FieldSpec("comment", 1.0, lambda activity: activity.comment),
)
"""An activity is searched by its comment text only (change lines carry no prose)."""


@dataclass(frozen=True, slots=True)
class ActivityListing:
    """The activities of a work package: ranked best first when a query was given,
    otherwise every activity in the order the API returned them (score 0)."""

    work_package_id: int
    activities: list[Ranked[Activity]]
    ranked: bool
    total: int
    requests: int


async def list_activities(
    client: OpenProjectClient,
    work_package_id: int,
    query: str | None = None,
    match_mode: str = "fuzzy",
    *,
    limit: int | None = None,
    min_score: float = DEFAULT_MIN_SCORE,
) -> ActivityListing:
    """Fetch the activities of *work_package_id* once and rank them against *query*.

    The ranking costs no request beyond the list itself. An invalid match mode or query
    is rejected (InvalidArgumentError) before any request is sent. ``total`` counts the
    activities fetched, ``activities`` those matching (all of them without a query).
    """
    mode = validate_match_mode(match_mode)
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 1):
        raise InvalidArgumentError(f"limit must be a positive integer or None, not {limit!r}")
    parsed = parse_query(query if query is not None else "", mode)
    start = client.request_count
    activities = await client.work_package_activities(work_package_id)
    if query is None or not query.strip():
        listed = [Ranked(activity, 0.0, ()) for activity in activities[:limit]]
        return ActivityListing(
            work_package_id, listed, False, len(activities), client.request_count - start
        )
    ranked = rank_records(activities, parsed, COMMENT_FIELD, min_score=min_score, limit=limit)
    return ActivityListing(
        work_package_id, ranked, True, len(activities), client.request_count - start
    )
