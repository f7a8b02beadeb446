"""Record factories shared by the index tests."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from opindex.records import AttributeValue, Record
from opindex.search.document import FieldValue, SearchDocument


def work_package(
    record_id: int,
    subject: str,
    description: str = "",
    comments: Iterable[str] = (),
    *,
    project_id: int | None = 1,
    updated_at: datetime | None = None,
    **attributes: AttributeValue,
) -> Record:
    """A work package record with the given texts and attributes."""
    fields = {
        "subject": (FieldValue(subject),),
        "description": (FieldValue(description),),
        "comments": tuple(FieldValue(c, ref=100 + i) for i, c in enumerate(comments)),
    }
    return Record(
        document=SearchDocument("work_package", record_id, fields),
        title=subject,
        project_id=project_id,
        project_name=f"Project {project_id}" if project_id is not None else None,
        updated_at=updated_at,
        attributes=dict(attributes),
    )


def wiki_page(record_id: int, title: str, text: str = "", *, project_id: int = 1) -> Record:
    """A wiki page record."""
    fields = {"title": (FieldValue(title),), "text": (FieldValue(text),)}
    return Record(
        document=SearchDocument("wiki_page", record_id, fields),
        title=title,
        project_id=project_id,
        attributes={"slug": title.lower().replace(" ", "-")},
    )


def meeting(record_id: int, title: str, agenda: Iterable[str] = (), author: str = "") -> Record:
    """A meeting record with agenda item titles (ref = agenda item id)."""
    fields = {
        "title": (FieldValue(title),),
        "author": (FieldValue(author),),
        "agenda_title": tuple(FieldValue(a, ref=500 + i) for i, a in enumerate(agenda)),
    }
    return Record(
        document=SearchDocument("meeting", record_id, fields),
        title=title,
        project_id=2,
        attributes={"location": "Room 1"},
    )
