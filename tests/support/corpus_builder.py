"""A tiny, readable sandbox corpus for tests, extended record by record."""

from __future__ import annotations

import copy
from typing import Any

ADMIN_KEY = "key-ada"  # user 1, admin: sees everything, internal comments included
MEMBER_KEY = "key-bob"  # user 2, member of projects 1 and 2
OUTSIDER_KEY = "key-carol"  # user 3, member of project 1 only; sees public project 3

OPEN_STATUS = 1
IN_PROGRESS_STATUS = 2
CLOSED_STATUS = 3


def _base() -> dict[str, Any]:
    return {
        "version": 1,
        "api_keys": {ADMIN_KEY: 1, MEMBER_KEY: 2, OUTSIDER_KEY: 3},
        "users": [
            {"id": 1, "login": "ada", "name": "Ada Admin", "admin": True},
            {"id": 2, "login": "bob", "name": "Bob Müller", "admin": False},
            {"id": 3, "login": "carol", "name": "Carol Zoë Ørsted", "admin": False},
        ],
        "projects": [
            {"id": 1, "identifier": "ops", "name": "Operations", "members": [1, 2, 3]},
            {"id": 2, "identifier": "hr", "name": "People & Hiring", "members": [1, 2]},
            {
                "id": 3,
                "identifier": "community",
                "name": "Community",
                "public": True,
                "members": [1],
            },
        ],
        "statuses": [
            {"id": OPEN_STATUS, "name": "New", "isClosed": False},
            {"id": IN_PROGRESS_STATUS, "name": "In progress", "isClosed": False},
            {"id": CLOSED_STATUS, "name": "Closed", "isClosed": True},
        ],
        "types": [{"id": 1, "name": "Task"}, {"id": 2, "name": "Bug"}],
        "work_packages": [],
        "wiki_pages": [],
        "meetings": [],
    }


class CorpusBuilder:
    """Start from three users and three projects; add records with sensible defaults.

    Project 1 "ops": everyone is a member. Project 2 "hr": private, user 3 is not a
    member. Project 3 "community": public. Every ``add_*`` returns the record it added.
    """

    def __init__(self) -> None:
        self.data = _base()

    def add_work_package(self, wp_id: int, **fields: Any) -> dict[str, Any]:
        record: dict[str, Any] = {
            "id": wp_id,
            "project": 1,
            "subject": f"Work package {wp_id}",
            "description": f"Description of work package {wp_id}.",
            "type": 1,
            "status": OPEN_STATUS,
            "author": 1,
            "assignee": 2,
            "createdAt": "2026-03-01T09:00:00Z",
            "updatedAt": "2026-03-02T09:00:00Z",
            "activities": [],
        }
        record.update(fields)
        self.data["work_packages"].append(record)
        return record

    def add_wiki_page(self, page_id: int, **fields: Any) -> dict[str, Any]:
        record: dict[str, Any] = {
            "id": page_id,
            "project": 1,
            "title": f"Wiki page {page_id}",
            "text": f"Body of wiki page {page_id}.",
        }
        record.update(fields)
        self.data["wiki_pages"].append(record)
        return record

    def add_meeting(self, meeting_id: int, **fields: Any) -> dict[str, Any]:
        record: dict[str, Any] = {
            "id": meeting_id,
            "project": 1,
            "title": f"Meeting {meeting_id}",
            "location": "Room 4",
            "startTime": "2026-03-05T09:00:00Z",
            "duration": 1.0,
            "state": "closed",
            "author": 2,
            "participants": [1, 2],
            "agendaItems": [],
        }
        record.update(fields)
        self.data["meetings"].append(record)
        return record

    def add_project(self, project_id: int, **fields: Any) -> dict[str, Any]:
        record: dict[str, Any] = {
            "id": project_id,
            "identifier": f"project-{project_id}",
            "name": f"Project {project_id}",
            "members": [1],
        }
        record.update(fields)
        self.data["projects"].append(record)
        return record

    def add_news(self, news_id: int, **fields: Any) -> dict[str, Any]:
        """A news item in project 1 by Ada (override any key)."""
        return self._add("news", {"id": news_id, "project": 1, "title": f"News {news_id}",
                                  "author": 1}, fields)  # fmt: skip

    def add_document(self, document_id: int, **fields: Any) -> dict[str, Any]:
        """A document in project 1."""
        return self._add(
            "documents",
            {"id": document_id, "project": 1, "title": f"Document {document_id}"},
            fields,
        )

    def add_version(self, version_id: int, **fields: Any) -> dict[str, Any]:
        """A version defined by project 1."""
        return self._add(
            "versions", {"id": version_id, "project": 1, "name": f"Version {version_id}"}, fields
        )

    def add_attachment(
        self, attachment_id: int, container: tuple[str, int], **fields: Any
    ) -> dict[str, Any]:
        """A file attached to *container* (``("work_packages", 101)``): a small text file
        unless ``generate`` or ``contentBase64`` say otherwise."""
        kind, container_id = container
        record: dict[str, Any] = {
            "id": attachment_id,
            "container": {"kind": kind, "id": container_id},
            "fileName": f"file-{attachment_id}.txt",
            "author": 1,
        }
        if "contentBase64" not in fields:
            record["generate"] = {"format": "text", "text": f"attachment {attachment_id}"}
        return self._add("attachments", record, fields)

    def _add(self, key: str, record: dict[str, Any], fields: dict[str, Any]) -> dict[str, Any]:
        record.update(fields)
        self.data.setdefault(key, []).append(record)
        return record

    def build(self) -> dict[str, Any]:
        """A deep copy of the corpus so far, ready for ``running_sandbox``."""
        return copy.deepcopy(self.data)
