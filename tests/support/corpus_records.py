"""Sandbox corpus dicts → Records, as an administrator's sync would index them.

Used to index generated corpora directly (oracle test, benchmarks) without serving them
over HTTP first. Field layout and attributes follow ``opindex.record_builders``.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from datetime import datetime
from typing import Any

from opindex.records import AttributeValue, Record
from opindex.search.document import FieldValue, SearchDocument

Corpus = Mapping[str, Any]
Values = tuple[FieldValue, ...]


def _when(value: str | None) -> datetime | None:
    return datetime.fromisoformat(value.replace("Z", "+00:00")) if value else None


def _text(value: str | None) -> Values:
    return (FieldValue(value),) if value and value.strip() else ()


def corpus_records(corpus: Corpus) -> Iterator[Record]:
    """Every work package, wiki page and meeting of *corpus* as a fully read Record."""
    users = {user["id"]: user["name"] for user in corpus["users"]}
    projects = {project["id"]: project["name"] for project in corpus["projects"]}
    statuses = {status["id"]: status for status in corpus["statuses"]}
    types = {kind["id"]: kind["name"] for kind in corpus["types"]}
    for wp in corpus["work_packages"]:
        yield _work_package(wp, users, projects, statuses, types)
    for page in corpus["wiki_pages"]:
        fields = {"title": _text(page["title"]), "text": _text(page.get("text"))}
        yield Record(
            document=SearchDocument("wiki_page", page["id"], fields),
            title=page["title"],
            project_id=page["project"],
            project_name=projects.get(page["project"]),
            updated_at=_when(page.get("updatedAt")),
            attributes={"slug": page.get("slug")},
        )
    for meeting in corpus["meetings"]:
        yield _meeting(meeting, users, projects)


def _work_package(
    wp: Mapping[str, Any],
    users: Mapping[int, str],
    projects: Mapping[int, str],
    statuses: Mapping[int, Mapping[str, Any]],
    types: Mapping[int, str],
) -> Record:
    activities = sorted(wp.get("activities") or (), key=lambda a: a["id"])
    fields = {
        "subject": _text(wp["subject"]),
        "description": _text(wp.get("description")),
        "comments": tuple(
            FieldValue(a["comment"], ref=a["id"])
            for a in activities
            if a.get("comment") and a["comment"].strip()
        ),
    }
    status = statuses[wp["status"]]
    attributes: dict[str, AttributeValue] = {
        "status_id": status["id"],
        "status_name": status["name"],
        "is_closed": status["isClosed"],
        "type_id": wp["type"],
        "type_name": types.get(wp["type"]),
        "assignee_id": wp.get("assignee"),
        "assignee_name": users.get(wp["assignee"]) if wp.get("assignee") else None,
        "author_id": wp["author"],
        "author_name": users.get(wp["author"]),
    }
    return Record(
        document=SearchDocument("work_package", wp["id"], fields),
        title=wp["subject"],
        project_id=wp["project"],
        project_name=projects.get(wp["project"]),
        updated_at=_when(wp.get("updatedAt")),
        attributes=attributes,
    )


def _meeting(
    meeting: Mapping[str, Any], users: Mapping[int, str], projects: Mapping[int, str]
) -> Record:
    items = meeting.get("agendaItems") or []
    fields = {
        "title": _text(meeting["title"]),
        "location": _text(meeting.get("location")),
        "project": _text(projects.get(meeting["project"])),
        "author": _text(users.get(meeting["author"])),
        "agenda_title": tuple(
            FieldValue(item["title"], ref=item["id"]) for item in items if item["title"].strip()
        ),
        "agenda_notes": tuple(
            FieldValue(item["notes"], ref=item["id"])
            for item in items
            if item.get("notes") and item["notes"].strip()
        ),
        "outcome_notes": tuple(
            FieldValue(outcome["notes"], ref=item["id"])
            for item in items
            for outcome in sorted(item.get("outcomes") or (), key=lambda o: o["id"])
            if outcome["notes"].strip()
        ),
        "participants": tuple(
            FieldValue(users[user]) for user in meeting.get("participants") or () if user in users
        ),
    }
    return Record(
        document=SearchDocument("meeting", meeting["id"], fields),
        title=meeting["title"],
        project_id=meeting["project"],
        project_name=projects.get(meeting["project"]),
        updated_at=_when(meeting.get("updatedAt")),
        attributes={"location": meeting.get("location"), "state": meeting.get("state")},
    )
