"""A corpus file seen as searchable records: the text of each field, named as the scorer does."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from opindex.search.document import Kind

# The fields the live path reads without enriching a record (opindex.search.fields), so a
# query generator can tell shallow words from deep-only words without importing weights.
TITLE_FIELD: Mapping[Kind, str] = {
    "work_package": "subject",
    "wiki_page": "title",
    "meeting": "title",
}


@dataclass(frozen=True, slots=True)
class CorpusItem:
    """One record of a corpus file: its text per field, status and recency.

    ``fields`` uses the scorer's field names (``subject``, ``description``, ``comments``;
    ``title``, ``text``; ``title``, ``location``, ``project``, ``author``,
    ``agenda_title``, ``agenda_notes``, ``outcome_notes``, ``participants``).
    """

    kind: Kind
    id: int
    title: str
    fields: Mapping[str, tuple[str, ...]]
    updated_at: str
    closed: bool = False

    def texts(self) -> list[str]:
        """Every text value of every field."""
        return [value for values in self.fields.values() for value in values]


def load_corpus(path: Path) -> dict[str, Any]:
    """The corpus dict of a corpus file (format version 1)."""
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def _values(*texts: str | None) -> tuple[str, ...]:
    return tuple(text for text in texts if text and text.strip())


def _work_packages(corpus: Mapping[str, Any]) -> list[CorpusItem]:
    closed = {status["id"]: bool(status["isClosed"]) for status in corpus["statuses"]}
    items = []
    for wp in corpus["work_packages"]:
        comments = _values(*(a.get("comment") for a in wp.get("activities", [])))
        fields = {
            "subject": _values(wp["subject"]),
            "description": _values(wp.get("description")),
            "comments": comments,
        }
        items.append(
            CorpusItem(
                kind="work_package",
                id=wp["id"],
                title=wp["subject"],
                fields=fields,
                updated_at=wp["updatedAt"],
                closed=closed.get(wp["status"], False),
            )
        )
    return items


def _wiki_pages(corpus: Mapping[str, Any]) -> list[CorpusItem]:
    return [
        CorpusItem(
            kind="wiki_page",
            id=page["id"],
            title=page["title"],
            fields={"title": _values(page["title"]), "text": _values(page.get("text"))},
            updated_at=page["updatedAt"],
        )
        for page in corpus["wiki_pages"]
    ]


def _meetings(corpus: Mapping[str, Any]) -> list[CorpusItem]:
    users = {user["id"]: user["name"] for user in corpus["users"]}
    projects = {project["id"]: project["name"] for project in corpus["projects"]}
    items = []
    for meeting in corpus["meetings"]:
        agenda = meeting.get("agendaItems", [])
        fields = {
            "title": _values(meeting["title"]),
            "location": _values(meeting.get("location")),
            "project": _values(projects.get(meeting["project"])),
            "author": _values(users.get(meeting["author"])),
            "agenda_title": _values(*(item.get("title") for item in agenda)),
            "agenda_notes": _values(*(item.get("notes") for item in agenda)),
            "outcome_notes": _values(
                *(outcome.get("notes") for item in agenda for outcome in item.get("outcomes", []))
            ),
            "participants": _values(*(users.get(uid) for uid in meeting.get("participants", []))),
        }
        items.append(
            CorpusItem(
                kind="meeting",
                id=meeting["id"],
                title=meeting["title"],
                fields=fields,
                updated_at=meeting["updatedAt"],
            )
        )
    return items


def corpus_items(corpus: Mapping[str, Any]) -> list[CorpusItem]:
    """Every work package, wiki page and meeting of *corpus*, in file order."""
    return [*_work_packages(corpus), *_wiki_pages(corpus), *_meetings(corpus)]


def by_kind(items: Sequence[CorpusItem]) -> dict[Kind, list[CorpusItem]]:
    """*items* grouped by kind, order kept."""
    grouped: dict[Kind, list[CorpusItem]] = {}
    for item in items:
        grouped.setdefault(item.kind, []).append(item)
    return grouped
