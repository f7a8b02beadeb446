"""The search suite's shared fixture documents, served by the sandbox for live-path tests.

``tests/search/search_corpus.py`` describes records as SearchDocuments; this module turns
them into a sandbox corpus (users for every author and participant name, projects for
every project name, agenda items with outcomes, comments as activities), so the live path
can be checked against the very documents the scorer tests use.
"""

from __future__ import annotations

from typing import Any

from tests.search.search_corpus import CORPUS
from tests.support.sandbox import CorpusBuilder

from opindex.search.document import Kind, SearchDocument

FIRST_USER_ID = 10
FIRST_PROJECT_ID = 10


def _texts(document: SearchDocument, name: str) -> list[str]:
    return [value.text for value in document.fields.get(name, ())]


def _first(document: SearchDocument, name: str) -> str | None:
    texts = [text for text in _texts(document, name) if text]
    return texts[0] if texts else None


class _Directory:
    """Users and projects created on demand by name."""

    def __init__(self, builder: CorpusBuilder) -> None:
        self.builder = builder
        self.users: dict[str, int] = {}
        self.projects: dict[str, int] = {}

    def user(self, name: str) -> int:
        if name not in self.users:
            user_id = FIRST_USER_ID + len(self.users)
            self.users[name] = user_id
            login = f"user{user_id}"
            self.builder.data["users"].append(
                {"id": user_id, "login": login, "name": name, "admin": False}
            )
        return self.users[name]

    def project(self, name: str) -> int:
        if name not in self.projects:
            project_id = FIRST_PROJECT_ID + len(self.projects)
            self.projects[name] = project_id
            self.builder.add_project(project_id, name=name, members=[1])
        return self.projects[name]


def _meeting(directory: _Directory, document: SearchDocument, start: str) -> None:
    notes = {value.ref: value.text for value in document.fields.get("agenda_notes", ())}
    outcomes: dict[int | None, list[str]] = {}
    for value in document.fields.get("outcome_notes", ()):
        outcomes.setdefault(value.ref, []).append(value.text)
    items: list[dict[str, Any]] = []
    for position, value in enumerate(document.fields.get("agenda_title", ()), start=1):
        assert value.ref is not None
        items.append(
            {
                "id": value.ref,
                "title": value.text,
                "notes": notes.get(value.ref),
                "position": position,
                "outcomes": [
                    {"id": value.ref * 10 + index, "kind": "information", "notes": text}
                    for index, text in enumerate(outcomes.get(value.ref, []), start=1)
                ],
            }
        )
    directory.builder.add_meeting(
        document.id,
        title=_first(document, "title") or "",
        location=_first(document, "location"),
        project=directory.project(_first(document, "project") or "Operations"),
        author=directory.user(_first(document, "author") or "Jane Doe"),
        participants=[directory.user(name) for name in _texts(document, "participants")],
        startTime=start,
        agendaItems=items,
    )


def _work_package(builder: CorpusBuilder, document: SearchDocument, updated: str) -> None:
    builder.add_work_package(
        document.id,
        subject=_first(document, "subject") or "",
        description=_first(document, "description"),
        updatedAt=updated,
        activities=[
            {"id": value.ref, "user": 1, "comment": value.text}
            for value in document.fields.get("comments", ())
        ],
    )


def shared_fixture_corpus() -> dict[str, Any]:
    """Every fixture document of the search suite as one sandbox corpus."""
    builder = CorpusBuilder()
    directory = _Directory(builder)
    for index, document in enumerate(CORPUS["meeting"]):
        _meeting(directory, document, f"2026-03-{index + 1:02d}T09:00:00Z")
    for index, document in enumerate(CORPUS["work_package"]):
        _work_package(builder, document, f"2026-04-{index + 1:02d}T09:00:00Z")
    for document in CORPUS["wiki_page"]:
        builder.add_wiki_page(
            document.id, title=_first(document, "title") or "", text=_first(document, "text")
        )
    return builder.build()


def containment_ids(kind: Kind, needle: str) -> list[int]:
    """Ids of fixture documents of *kind* with a field value containing *needle*
    (case-insensitive), ascending: what legacy exact matching returns."""
    lowered = needle.lower()
    return sorted(
        document.id
        for document in CORPUS[kind]
        if any(
            lowered in value.text.lower() for values in document.fields.values() for value in values
        )
    )
