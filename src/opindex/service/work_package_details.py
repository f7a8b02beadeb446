"""A work package's page beyond its searchable text: priority, dates, parent, comments.

The index keeps what search needs; who wrote a comment and when, the priority, the dates
and the parent are read live when one work package is read in full (two requests). A
server that cannot be reached leaves the record as read, with a note.
"""

from __future__ import annotations

import asyncio

from opindex.envelope import CommentOut, RecordRef, RecordResponse, WorkPackageDetails
from opindex.errors import NotFoundError, OpenProjectError
from opindex.openproject.client import OpenProjectClient


async def read_details(client: OpenProjectClient, work_package_id: int) -> WorkPackageDetails:
    """The details of one work package; comments oldest first, internal ones only when
    the account may see them (the API returns no others)."""
    work_package, activities = await asyncio.gather(
        client.work_package(work_package_id), client.work_package_activities(work_package_id)
    )
    parent = work_package.parent
    return WorkPackageDetails(
        priority=work_package.priority.name if work_package.priority is not None else None,
        startDate=work_package.start_date,
        dueDate=work_package.due_date,
        parent=RecordRef(id=parent.id, title=parent.name) if parent is not None else None,
        comments=[
            CommentOut(
                id=activity.id,
                author=activity.user.name if activity.user is not None else None,
                createdAt=activity.created_at,
                internal=activity.internal,
                text=activity.comment,
            )
            for activity in sorted(activities, key=lambda a: (a.created_at is None, a.id))
            if activity.comment.strip()
        ],
    )


async def with_details(client: OpenProjectClient, response: RecordResponse) -> RecordResponse:
    """*response* (a work package) with its details, or with a note saying why not."""
    try:
        details = await read_details(client, response.record.id)
    except NotFoundError:
        raise
    except OpenProjectError as exc:
        note = (
            f"comment authors and dates, priority and dates could not be read live ({exc}); "
            "the comments below are the indexed text"
        )
        response.meta.notes.append(note)
        return response
    return response.model_copy(update={"details": details})
