"""Reads that are not searches: one record, a work package's activities, a filtered listing."""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from opindex.envelope import (
    ActivityOut,
    FieldValueOut,
    ProjectRef,
    RecordOut,
    SearchRequest,
    SearchResult,
    StatusFilter,
    UserRef,
)
from opindex.errors import InvalidArgumentError, NotFoundError
from opindex.record_builders import meeting_record, wiki_page_record, work_package_record
from opindex.records import Record
from opindex.search import KINDS, Kind, Ranked, parse_query
from opindex.service.request_filters import check_filters
from opindex.service.result_builder import ResultBuilder, record_url

if TYPE_CHECKING:
    from opindex.live import ActivityListing
    from opindex.openproject import Filter, OpenProjectClient, WorkPackage

MAX_LISTING = 200
"""Most work packages one listing call returns."""
_NO_QUERY = parse_query("")


def check_kind(kind: str) -> Kind:
    """*kind* typed, or InvalidArgumentError naming the valid kinds."""
    for known in KINDS:
        if kind == known:
            return known
    raise InvalidArgumentError(f"unknown record kind {kind!r}; expected one of: {', '.join(KINDS)}")


def record_out(record: Record, base_url: str | None) -> RecordOut:
    """The wire form of a whole record."""
    return RecordOut(
        id=record.id,
        kind=record.document.kind,
        title=record.title,
        project=ProjectRef(id=record.project_id, name=record.project_name),
        updatedAt=record.updated_at,
        url=record_url(base_url, record),
        attributes=dict(record.attributes),
        fields={
            name: [FieldValueOut(text=value.text, ref=value.ref) for value in values]
            for name, values in record.document.fields.items()
        },
    )


async def fetch_record(client: OpenProjectClient, kind: Kind, record_id: int) -> Record:
    """Read one record live, with its deep content (NotFoundError if absent or invisible)."""
    from opindex.openproject import closed_status_ids, resolve_status_closed  # D159

    if kind == "wiki_page":
        return wiki_page_record(await client.wiki_page(record_id))
    if kind == "meeting":
        meeting = await client.meeting(record_id)
        try:
            items = await client.meeting_agenda_items(record_id)
        except NotFoundError:  # servers before 17.4 have no agenda items API
            return meeting_record(meeting, None)
        return meeting_record(meeting, items)
    work_package = await client.work_package(record_id)
    activities = await client.work_package_activities(record_id)
    closed = closed_status_ids(await client.statuses())
    return work_package_record(
        work_package, activities, status_closed=resolve_status_closed(work_package, closed)
    )


def activities_out(listing: ActivityListing) -> list[ActivityOut]:
    """Ranked activities as wire models (the best-matching excerpt as snippet)."""
    return [
        ActivityOut(
            id=item.record.id,
            score=item.score,
            comment=item.record.comment,
            snippet=item.matches[0].snippet if item.matches else None,
            internal=item.record.internal,
            user=UserRef(id=item.record.user.id, name=item.record.user.name)
            if item.record.user is not None
            else None,
            createdAt=item.record.created_at,
        )
        for item in listing.activities
    ]


def listing_filters(
    *,
    subject: str | None,
    project_id: int | None,
    status: StatusFilter | list[int],
    type_id: int | None,
    assignee_id: int | None,
    author_id: int | None = None,
    updated_after: datetime | None = None,
    updated_before: datetime | None = None,
) -> list[Filter]:
    """OpenProject filters of a listing: the caller's filters plus ``subject ~ text``."""
    request = SearchRequest(
        kind="work_package",
        project_id=project_id,
        status=status,
        type_id=type_id,
        assignee_id=assignee_id,
        author_id=author_id,
        updated_after=updated_after,
        updated_before=updated_before,
    )
    check_filters(request)
    from opindex.live import caller_filters  # the live path loads on first use (D159)
    from opindex.openproject import Filter

    filters = caller_filters(request)
    if subject is not None and subject.strip():
        filters.append(Filter.of("subject", "~", [subject.strip()]))
    return filters


async def list_work_packages(
    client: OpenProjectClient,
    filters: Sequence[Filter],
    limit: int,
    base_url: str,
    *,
    offset: int = 0,
) -> tuple[list[SearchResult], int, list[int]]:
    """The work packages OpenProject lists for *filters*, newest first, from *offset*:
    *limit* of them, the total, and the ids of every one listed up to the end of the page
    and one more (for the cursor: the earlier pages' records and whether more follow)."""
    from opindex.openproject import closed_status_ids, resolve_status_closed  # D159

    if not 1 <= limit <= MAX_LISTING:
        raise InvalidArgumentError(f"limit must be between 1 and {MAX_LISTING}, not {limit}")
    wanted = offset + limit + 1
    size = min(wanted, MAX_LISTING + 1)
    query = client.work_packages(filters, sort_by=(("updatedAt", "desc"),), page_size=size)
    elements: list[WorkPackage] = []
    total = 0
    pages = query.pages()
    async with contextlib.aclosing(pages):
        async for page in pages:  # as many pages as reach the end of the wanted one
            elements.extend(page.elements)
            total = page.total or len(elements)
            if len(elements) >= wanted or not page.elements:
                break
    shown = elements[offset : offset + limit]
    closed = closed_status_ids(await client.statuses()) if shown else {}
    builder = ResultBuilder(_NO_QUERY, base_url=base_url)
    results = []
    for wp in shown:
        record = work_package_record(wp, None, status_closed=resolve_status_closed(wp, closed))
        results.append(builder.result(record, Ranked(record.document, 0.0, ())))
    return results, total, [wp.id for wp in elements[:wanted]]
