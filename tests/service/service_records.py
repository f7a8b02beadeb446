"""Record factories for the service tests (the shapes record_builders produce)."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime

from opindex.records import AttributeValue, Record
from opindex.search.document import FieldValue, SearchDocument

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


def work_package(
    record_id: int,
    subject: str,
    description: str = "",
    comments: Iterable[tuple[int, str]] = (),
    *,
    project_id: int = 1,
    is_closed: bool = False,
    status_id: int = 1,
    type_id: int = 1,
    assignee_id: int | None = None,
    updated_at: datetime = T0,
) -> Record:
    """A work package; *comments* are (activity id, text) pairs."""
    fields = {
        "subject": (FieldValue(subject),),
        "description": (FieldValue(description),) if description else (),
        "comments": tuple(FieldValue(text, ref=ref) for ref, text in comments),
    }
    attributes: dict[str, AttributeValue] = {
        "status_id": status_id,
        "is_closed": is_closed,
        "type_id": type_id,
        "assignee_id": assignee_id,
    }
    return Record(
        document=SearchDocument("work_package", record_id, fields),
        title=subject,
        project_id=project_id,
        project_name=f"Project {project_id}",
        updated_at=updated_at,
        attributes=attributes,
    )


def wiki_page(record_id: int, title: str, text: str = "", *, project_id: int = 1) -> Record:
    """A wiki page."""
    fields = {"title": (FieldValue(title),), "text": (FieldValue(text),) if text else ()}
    return Record(
        document=SearchDocument("wiki_page", record_id, fields),
        title=title,
        project_id=project_id,
        project_name=f"Project {project_id}",
        updated_at=T0,
        attributes={"slug": title.lower().replace(" ", "-")},
    )


def meeting(
    record_id: int,
    title: str,
    agenda: Iterable[tuple[int, str, str]] = (),
    outcomes: Iterable[tuple[int, str]] = (),
    *,
    author: str = "Ada Admin",
    participants: Iterable[str] = (),
    location: str = "Room 1",
    project_id: int = 1,
) -> Record:
    """A meeting; *agenda* holds (item id, title, notes), *outcomes* (item id, notes)."""
    items = list(agenda)
    fields = {
        "title": (FieldValue(title),),
        "location": (FieldValue(location),),
        "project": (FieldValue(f"Project {project_id}"),),
        "author": (FieldValue(author),),
        "agenda_title": tuple(FieldValue(t, ref=i) for i, t, _ in items),
        "agenda_notes": tuple(FieldValue(n, ref=i) for i, _, n in items if n),
        "outcome_notes": tuple(FieldValue(n, ref=i) for i, n in outcomes),
        "participants": tuple(FieldValue(p) for p in participants),
    }
    return Record(
        document=SearchDocument("meeting", record_id, fields),
        title=title,
        project_id=project_id,
        project_name=f"Project {project_id}",
        updated_at=T0,
        attributes={"location": location, "author_name": author},
    )
