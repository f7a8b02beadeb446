"""Live work package search (spec §3.3): union of a subject filter and a recency window."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence

from opindex.envelope import SearchRequest
from opindex.errors import OpenProjectError
from opindex.live.outcome import CandidateSet
from opindex.live.pipeline import FATAL_ERRORS, close_walk, shallow_record
from opindex.openproject import (
    Activity,
    Filter,
    OpenProjectClient,
    SortBy,
    WorkPackage,
    closed_status_ids,
    equals,
    iso_utc,
    resolve_status_closed,
)
from opindex.record_builders import work_package_record
from opindex.records import Record
from opindex.search import Query

CANDIDATE_CAP = 250
"""Most work packages taken from each of the two candidate queries."""
RECENT_FIRST: SortBy = (("updatedAt", "desc"), ("id", "desc"))


def caller_filters(request: SearchRequest) -> list[Filter]:
    """The caller's filters as API filters: project, status, type, assignee, author and
    the update window (``updatedAt <>d``, both ends inclusive; the exclusive upper end
    of the request is applied again to the records, see ``LiveSession``).

    Status "open"/"closed" use the ``o``/``c`` operators, a list of ids ``=``; "all" sends
    no status filter (the filter list itself is always sent, so closed ones are included).
    """
    filters: list[Filter] = []
    if request.project_id is not None:
        filters.append(equals("project", [request.project_id]))
    if request.status == "open":
        filters.append(Filter.of("status", "o"))
    elif request.status == "closed":
        filters.append(Filter.of("status", "c"))
    elif isinstance(request.status, list):
        filters.append(equals("status", request.status))
    if request.type_id is not None:
        filters.append(equals("type", [request.type_id]))
    if request.assignee_id is not None:
        filters.append(equals("assignee", [request.assignee_id]))
    if request.author_id is not None:
        filters.append(equals("author", [request.author_id]))
    if request.updated_after is not None or request.updated_before is not None:
        after = iso_utc(request.updated_after) if request.updated_after else ""
        before = iso_utc(request.updated_before) if request.updated_before else ""
        filters.append(Filter.of("updatedAt", "<>d", [after, before]))
    return filters


def subject_filter_text(query: Query) -> str | None:
    """The text for Query A's server-side ``subject ~`` filter; None for a blank query.

    Exact mode sends the caller's text as is (legacy behaviour); fuzzy mode strips it.
    """
    text = query.text if query.match_mode == "exact" else query.text.strip()
    return text if text.strip() else None


async def _first(
    client: OpenProjectClient, filters: Sequence[Filter], cap: int
) -> list[WorkPackage]:
    """The first *cap* work packages matching *filters*, most recently updated first."""
    found: list[WorkPackage] = []
    walk = client.work_packages(filters, RECENT_FIRST, page_size=cap).pages()
    try:
        async for page in walk:
            found.extend(page.elements[: cap - len(found)])
            if len(found) >= cap:
                break
    finally:
        await close_walk(walk)
    return found


def _updated(record: Record) -> float | None:
    return record.updated_at.timestamp() if record.updated_at is not None else None


class WorkPackageSource:
    """Fetches work package candidates for one request and enriches them on demand.

    Statuses (for the ``is_closed`` attribute) are read once per source and shared by the
    sessions of one searcher; a failure to read them only leaves ``is_closed`` unknown.
    """

    def __init__(self, client: OpenProjectClient) -> None:
        self._client = client
        self._closed: Mapping[int, bool] | None = None

    async def _statuses(self) -> Mapping[int, bool]:
        if self._closed is None:
            try:
                self._closed = closed_status_ids(await self._client.statuses())
            except FATAL_ERRORS:
                raise
            except OpenProjectError:
                return {}
        return self._closed

    @staticmethod
    def _record(
        wp: WorkPackage, closed: Mapping[int, bool], activities: Sequence[Activity] | None
    ) -> Record:
        return work_package_record(wp, activities, status_closed=resolve_status_closed(wp, closed))

    async def candidates(self, request: SearchRequest, query: Query) -> CandidateSet:
        """Query A (caller filters + ``subject ~ text``) and Query B (caller filters, the
        250 most recently updated) in parallel, de-duplicated by id, A's first."""
        base = caller_filters(request)
        subject = subject_filter_text(query)
        window = _first(self._client, base, CANDIDATE_CAP)
        if subject is not None:
            by_subject = _first(
                self._client, [*base, Filter.of("subject", "~", [subject])], CANDIDATE_CAP
            )
            matched, recent, closed = await asyncio.gather(by_subject, window, self._statuses())
        else:
            matched = []
            recent, closed = await asyncio.gather(window, self._statuses())
        seen: set[int] = set()
        records: list[Record] = []
        for wp in [*matched, *recent]:
            if wp.id not in seen:
                seen.add(wp.id)
                records.append(shallow_record(self._record(wp, closed, None)))
        notes: list[str] = []
        if len(recent) >= CANDIDATE_CAP:
            notes.append(
                f"only the {CANDIDATE_CAP} most recently updated work packages matching the "
                "filters (plus subject matches) were searched"
            )

        async def enrich(record: Record) -> Record:
            detail = await self._client.work_package(record.id)
            activities = await self._client.work_package_activities(record.id)
            return self._record(detail, closed, activities)

        return CandidateSet(records=records, enrich=enrich, recency=_updated, notes=notes)
