"""API models → Records: the one conversion shared by the live path and the syncer.

For the kinds whose list responses carry every field (news, documents, projects,
versions), ``listed_records`` also does the listing both paths share.

Deep content passed as ``None`` means "not read": its field names are left out of the
SearchDocument, so a scorer can tell "empty" (an empty tuple) from "unknown" (absent).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from opindex.errors import InvalidArgumentError
from opindex.records import AttributeValue, Record
from opindex.search import FieldValue, Kind, SearchDocument

if TYPE_CHECKING:  # the API models are read here, never built: none is imported at run time
    from opindex.openproject import (
        Activity,
        AgendaItem,
        Attachment,
        Document,
        Meeting,
        News,
        OpenProjectClient,
        Project,
        Ref,
        Version,
        WikiPage,
        WorkPackage,
    )

Values = tuple[FieldValue, ...]


def work_package_record(
    wp: WorkPackage,
    activities: Sequence[Activity] | None,
    *,
    status_closed: bool | None,
) -> Record:
    """A work package with its description and, if read, its comments.

    Fields: ``subject``; deep ``description`` (absent when the response had none) and
    ``comments`` (one value per activity with a non-empty comment, ref = activity id;
    absent when *activities* is ``None``). *status_closed* comes from the status table
    (``resolve_status_closed``); when ``None`` the embedded flag of *wp* is used.
    """
    fields: dict[str, Values] = {"subject": _text(wp.subject)}
    if wp.description is not None:
        fields["description"] = _text(wp.description)
    if activities is not None:
        fields["comments"] = tuple(
            FieldValue(activity.comment, ref=activity.id)
            for activity in sorted(activities, key=lambda a: a.id)
            if activity.comment.strip()
        )
    closed = status_closed if status_closed is not None else wp.status_is_closed
    attributes: dict[str, AttributeValue] = {
        "status_id": _ref_id(wp.status),
        "status_name": _ref_name(wp.status),
        "is_closed": closed,
        "type_id": _ref_id(wp.type),
        "type_name": _ref_name(wp.type),
        "assignee_id": _ref_id(wp.assignee),
        "assignee_name": _ref_name(wp.assignee),
        "author_id": _ref_id(wp.author),
        "author_name": _ref_name(wp.author),
        "created_at": _iso(wp.created_at),
        "display_id": wp.display_id,
        "priority_name": _ref_name(wp.priority),
        "start_date": wp.start_date,
        "due_date": wp.due_date,
        "parent_id": _ref_id(wp.parent),
        "parent_title": _ref_name(wp.parent),
    }
    if activities is not None:
        attributes[COMMENT_META] = comment_meta(activities)
    return Record(
        document=SearchDocument(kind="work_package", id=wp.id, fields=fields),
        title=wp.subject,
        project_id=_ref_id(wp.project),
        project_name=_ref_name(wp.project),
        updated_at=wp.updated_at,
        attributes=attributes,
    )


COMMENT_META = "comment_meta"
"""The attribute holding who wrote each comment and when (JSON, see ``comment_meta``)."""


def comment_meta(activities: Sequence[Activity]) -> str:
    """``{"<activity id>": [author name, created at (ISO), internal], ...}`` for the
    activities with a comment, as JSON (attributes hold scalars only)."""
    meta = {
        str(activity.id): [
            _ref_name(activity.user),
            _iso(activity.created_at),
            activity.internal,
        ]
        for activity in activities
        if activity.comment.strip()
    }
    return json.dumps(meta, ensure_ascii=False, separators=(",", ":"))


def wiki_page_record(page: WikiPage) -> Record:
    """A wiki page: ``title`` and, when the server exposes it, ``text``."""
    fields: dict[str, Values] = {"title": _text(page.title)}
    if page.text is not None:
        fields["text"] = _text(page.text)
    return Record(
        document=SearchDocument(kind="wiki_page", id=page.id, fields=fields),
        title=page.title,
        project_id=_ref_id(page.project),
        project_name=_ref_name(page.project),
        updated_at=page.updated_at,
        attributes={"slug": page.slug},
    )


def meeting_record(meeting: Meeting, agenda_items: Sequence[AgendaItem] | None) -> Record:
    """A meeting with, if read, its agenda items, their outcomes and its participants.

    Shallow fields ``title``, ``location``, ``project`` (name), ``author`` (name). Deep:
    ``agenda_title`` and ``agenda_notes`` (ref = agenda item id) and ``outcome_notes``
    (ref = the agenda item the outcome belongs to) when *agenda_items* is given —
    ``outcome_notes`` only if the outcomes were read; ``participants`` (names) when the
    meeting carries its participant list.
    """
    fields: dict[str, Values] = {
        "title": _text(meeting.title),
        "location": _text(meeting.location),
        "project": _text(_ref_name(meeting.project)),
        "author": _text(_ref_name(meeting.author)),
    }
    if agenda_items is not None:
        items = list(agenda_items)  # server order: sections, then position
        fields["agenda_title"] = tuple(
            FieldValue(item.title, ref=item.id) for item in items if item.title.strip()
        )
        fields["agenda_notes"] = tuple(
            FieldValue(item.notes, ref=item.id)
            for item in items
            if item.notes is not None and item.notes.strip()
        )
        if not items or any(item.outcomes is not None for item in items):
            fields["outcome_notes"] = tuple(
                FieldValue(outcome.notes, ref=item.id)
                for item in items
                for outcome in sorted(item.outcomes or (), key=lambda o: o.id)
                if outcome.notes.strip()
            )
    if meeting.participants is not None:
        fields["participants"] = tuple(
            FieldValue(person.name) for person in meeting.participants if person.name
        )
    attributes: dict[str, AttributeValue] = {
        "start_time": _iso(meeting.start_time),
        "location": meeting.location,
        "state": meeting.state,
        "author_id": _ref_id(meeting.author),
        "author_name": _ref_name(meeting.author),
    }
    document = SearchDocument(kind="meeting", id=meeting.id, fields=fields)
    return _in_project(document, meeting.title, meeting.project, meeting.updated_at, attributes)


def news_record(news: News) -> Record:
    """A news item: ``title``, ``summary``, ``description``."""
    fields = {
        "title": _text(news.title),
        "summary": _text(news.summary),
        "description": _text(news.description),
    }
    document = SearchDocument(kind="news", id=news.id, fields=fields)
    author = {"author_id": _ref_id(news.author), "author_name": _ref_name(news.author)}
    return _in_project(
        document, news.title, news.project, news.updated_at or news.created_at, author
    )


def document_record(document: Document) -> Record:
    """A document: ``title`` and ``description``."""
    fields = {"title": _text(document.title), "description": _text(document.description)}
    searched = SearchDocument(kind="document", id=document.id, fields=fields)
    updated = document.updated_at or document.created_at
    return _in_project(searched, document.title, document.project, updated)


def project_record(project: Project) -> Record:
    """A project: ``name``, ``identifier``, ``description``, ``status_explanation``; its
    own id is its project."""
    fields = {
        "name": _text(project.name),
        "identifier": _text(project.identifier),
        "description": _text(project.description),
        "status_explanation": _text(project.status_explanation),
    }
    return Record(
        document=SearchDocument(kind="project", id=project.id, fields=fields),
        title=project.name,
        project_id=project.id,
        project_name=project.name,
        updated_at=project.updated_at,
        attributes={"identifier": project.identifier, "active": project.active},
    )


def version_record(version: Version) -> Record:
    """A version: ``name`` and ``description``, in its defining project."""
    fields = {"name": _text(version.name), "description": _text(version.description)}
    document = SearchDocument(kind="version", id=version.id, fields=fields)
    status: dict[str, AttributeValue] = {"status": version.status}
    return _in_project(document, version.name, version.defining_project, version.updated_at, status)


def attachment_record(
    attachment: Attachment,
    content: str | None,
    *,
    container: Record,
    extraction: str,
) -> Record:
    """An attached file: ``file_name``, ``description`` and, when its text was extracted,
    ``content``. It belongs to its *container*'s project; *extraction* says how the text
    was read (``extracted``, ``truncated``, ``skipped: too_large`` …)."""
    fields: dict[str, Values] = {
        "file_name": _text(attachment.file_name),
        "description": _text(attachment.description),
    }
    if content is not None:
        fields["content"] = _text(content)
    return Record(
        document=SearchDocument(kind="attachment", id=attachment.id, fields=fields),
        title=attachment.file_name,
        project_id=container.project_id,
        project_name=container.project_name,
        updated_at=attachment.created_at,
        attributes={
            "container_kind": container.document.kind,
            "container_id": container.id,
            "container_title": container.title,
            "content_type": attachment.content_type,
            "file_size": attachment.file_size,
            "digest": attachment.digest,
            "extraction": extraction,
            "author_name": _ref_name(attachment.author),
        },
    )


async def listed_records(
    client: OpenProjectClient, kind: Kind, limit: int | None = None
) -> list[Record]:
    """The records of a kind whose list carries every field: all of them, or the first
    *limit*. ``InvalidArgumentError`` for a kind that must be read record by record."""
    if kind == "news":
        return [news_record(item) for item in await client.news().collect(limit)]
    if kind == "document":
        return [document_record(item) for item in await client.documents().collect(limit)]
    if kind == "project":
        return [project_record(item) for item in await client.projects().collect(limit)]
    if kind == "version":
        return [version_record(item) for item in await client.versions().collect(limit)]
    raise InvalidArgumentError(f"{kind} records are not read from one list")


ATTACHMENT_META = "attachment_meta"
"""The attribute of a container naming its attached files (JSON: id → file name)."""


def attachment_names(record: Record) -> dict[int, str]:
    """Attachment id → file name, from a container's ``attachment_meta`` (empty when it
    has none or it cannot be read)."""
    raw = record.attributes.get(ATTACHMENT_META)
    if not isinstance(raw, str):
        return {}
    try:
        names = json.loads(raw)
    except ValueError:
        return {}
    if not isinstance(names, dict):
        return {}
    return {int(key): str(value) for key, value in names.items() if key.isdigit()}


def with_attachments(container: Record, attachments: Sequence[Record]) -> Record:
    """*container* with the text of its *attachments* as its ``attachments`` field (one
    value per file with text, ref = attachment id) and their names in ``attachment_meta``;
    *container* itself when it holds no files (as a record of a server without files)."""
    if not attachments:
        return container
    values = tuple(
        FieldValue(value.text, ref=attachment.id)
        for attachment in sorted(attachments, key=lambda a: a.id)
        for value in attachment.document.fields.get("content", ())
        if value.text.strip()
    )
    fields = {**container.document.fields, "attachments": values}
    names = {str(a.id): a.title for a in sorted(attachments, key=lambda a: a.id)}
    attributes = {
        **container.attributes,
        ATTACHMENT_META: json.dumps(names, ensure_ascii=False, separators=(",", ":")),
    }
    document = dataclasses.replace(container.document, fields=fields)
    return dataclasses.replace(container, document=document, attributes=attributes)


def _in_project(
    document: SearchDocument,
    title: str,
    project: Ref | None,
    updated_at: datetime | None,
    attributes: Mapping[str, AttributeValue] | None = None,
) -> Record:
    """A record of *document* belonging to *project*."""
    return Record(
        document=document,
        title=title,
        project_id=_ref_id(project),
        project_name=_ref_name(project),
        updated_at=updated_at,
        attributes=dict(attributes or {}),
    )


def _text(value: str | None) -> Values:
    if value is None or not value.strip():
        return ()
    return (FieldValue(value),)


def _ref_id(value: Ref | None) -> int | None:
    return value.id if value is not None else None


def _ref_name(value: Ref | None) -> str | None:
    return value.name if value is not None else None


def _iso(moment: datetime | None) -> str | None:
    return moment.isoformat() if moment is not None else None
