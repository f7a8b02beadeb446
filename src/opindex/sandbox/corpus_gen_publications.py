"""Generated news, documents, versions, forum posts and attachments (the optional kinds)."""

from __future__ import annotations

import random
import re
from collections.abc import Iterator, Sequence
from datetime import datetime, timedelta
from functools import partial
from typing import Any, Protocol

from opindex.sandbox import corpus_vocabulary as vocab
from opindex.sandbox.corpus_clock import EPOCH, HISTORY_DAYS, stamp
from opindex.sandbox.corpus_text import TextFiller


class _Generator(Protocol):
    """What the optional kinds need of the corpus generator (``corpus_gen._Generator``)."""

    rng: random.Random
    text: TextFiller
    size: Any
    projects: list[dict[str, Any]]
    wp_projects: list[int]
    wiki_projects: list[tuple[int, int]]

    def members(self, project: dict[str, Any]) -> list[int]: ...

    def names(self, user_ids: Sequence[int]) -> list[str]: ...

    def pick_project(self) -> dict[str, Any]: ...

    def moment(self, earliest: datetime, spread_days: float) -> datetime: ...


FORMATS = (("pdf", ".pdf"), ("pdf", ".pdf"), ("docx", ".docx"), ("text", ".txt"))
VERSION_STATUSES = ("open", "open", "locked", "closed", "closed")


def publication_sections(gen: _Generator) -> Iterator[tuple[str, Any]]:
    """The optional sections with at least one record, after every other kind (the work
    packages and wiki pages they attach to already exist)."""
    size = gen.size
    makers = (
        ("news", size.news, _news),
        ("documents", size.documents, _document),
        ("versions", size.versions, _version),
        ("posts", size.posts, _post),
        ("attachments", size.attachments, _attachment),
    )
    for key, count, make in makers:
        if count > 0:
            yield key, map(partial(make, gen), range(1, count + 1))


def _start(gen: _Generator) -> tuple[dict[str, Any], list[int]]:
    project = gen.pick_project()
    people = gen.members(project)
    gen.text.start_record(gen.names(people))
    return project, people


def _stamp(gen: _Generator) -> str:
    return stamp(gen.moment(EPOCH, HISTORY_DAYS))


def _news(gen: _Generator, news_id: int) -> dict[str, Any]:
    project, people = _start(gen)
    return {
        "id": news_id,
        "project": project["id"],
        "title": gen.text.fill(gen.rng.choice(vocab.SUBJECT_TEMPLATES)),
        "summary": gen.text.comment(internal=False),
        "description": gen.text.description(),
        "author": gen.rng.choice(people),
        "createdAt": _stamp(gen),
    }


def _document(gen: _Generator, document_id: int) -> dict[str, Any]:
    project, _ = _start(gen)
    created = _stamp(gen)
    return {
        "id": document_id,
        "project": project["id"],
        "title": gen.text.fill(gen.rng.choice(vocab.WIKI_TITLES)),
        "description": gen.text.description(),
        "createdAt": created,
        "updatedAt": created,
    }


def _version(gen: _Generator, version_id: int) -> dict[str, Any]:
    project, _ = _start(gen)
    start = (EPOCH + timedelta(days=gen.rng.randint(0, 540))).date()
    word = gen.rng.choice(vocab.CODEWORDS).capitalize()
    return {
        "id": version_id,
        "project": project["id"],
        "name": f"{word} {version_id}",
        "description": gen.text.comment(internal=False),
        "status": gen.rng.choice(VERSION_STATUSES),
        "sharing": "system" if gen.rng.random() < 0.1 else "none",
        "startDate": start.isoformat(),
        "endDate": (start + timedelta(days=gen.rng.choice((14, 28, 90)))).isoformat(),
    }


def _post(gen: _Generator, post_id: int) -> dict[str, Any]:
    project, people = _start(gen)
    return {
        "id": post_id,
        "project": project["id"],
        "subject": gen.text.fill(gen.rng.choice(vocab.SUBJECT_TEMPLATES)) + "?",
        "author": gen.rng.choice(people),
        "createdAt": _stamp(gen),
    }


def _attachment(gen: _Generator, attachment_id: int) -> dict[str, Any]:
    rng = gen.rng
    on_wiki = gen.wiki_projects and (not gen.wp_projects or rng.random() < 0.2)
    if on_wiki:
        container_id, project_id = rng.choice(gen.wiki_projects)
        kind = "wiki_pages"
    elif gen.wp_projects:
        index = rng.randrange(len(gen.wp_projects))
        container_id, project_id, kind = index + 1, gen.wp_projects[index], "work_packages"
    else:
        raise ValueError("attachments need work packages or wiki pages to attach to")
    project = next(p for p in gen.projects if p["id"] == project_id)
    people = gen.members(project)
    gen.text.start_record(gen.names(people))
    title = gen.text.fill(rng.choice(vocab.WIKI_TITLES))
    file_format, extension = rng.choice(FORMATS)
    slug = re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")[:40] or "file"
    return {
        "id": attachment_id,
        "container": {"kind": kind, "id": container_id},
        "fileName": f"{slug}-{attachment_id}{extension}",
        "author": rng.choice(people),
        "generate": {"format": file_format, "text": f"{title}\n\n{gen.text.description()}"},
        "createdAt": _stamp(gen),
    }
