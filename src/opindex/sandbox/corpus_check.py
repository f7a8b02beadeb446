"""Loading and validating a corpus: bad JSON, bad fields, duplicates, dangling references."""

from __future__ import annotations

import gc
import json
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from opindex.errors import CorpusError
from opindex.sandbox.corpus import (
    Corpus,
    Document,
    FileAttachment,
    Meeting,
    News,
    Post,
    Project,
    Version,
    WikiPage,
    WorkPackage,
)


def load_corpus_file(path: Path) -> Corpus:
    """Read, parse and check a corpus file; raise ``CorpusError`` naming the bad record."""
    try:
        raw_bytes = path.read_bytes()
    except OSError as exc:
        raise CorpusError(f"cannot read corpus {path}: {exc.strerror or exc}") from exc
    with _collector_paused():
        try:
            data = json.loads(raw_bytes)
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise CorpusError(f"corpus {path} is not valid JSON: {exc}") from exc
        except RecursionError as exc:
            raise CorpusError(f"corpus {path} is not valid JSON: nested too deeply") from exc
        return parse_corpus(data, source=str(path))


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector: building millions of objects that all stay alive
    otherwise triggers full collections over and over (it halves the load time)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def parse_corpus(data: Any, *, source: str = "corpus") -> Corpus:
    """Validate decoded JSON as a corpus; raise ``CorpusError`` naming the bad record."""
    if not isinstance(data, dict):
        raise CorpusError(f"{source}: the top level must be a JSON object")
    try:
        corpus = Corpus.model_validate(data)
    except ValidationError as exc:
        raise CorpusError(f"{source}: {describe_validation_error(exc, data)}") from exc
    problems = corpus_problems(corpus)
    if problems:
        more = f" (and {len(problems) - 1} more problem(s))" if len(problems) > 1 else ""
        raise CorpusError(f"{source}: {problems[0]}{more}")
    return corpus


def describe_validation_error(exc: ValidationError, data: Mapping[str, Any]) -> str:
    """The first pydantic error as 'work_packages[3] (id 105): field subject: <problem>'."""
    first = exc.errors()[0]
    location = list(first["loc"])
    where = record_label(location, data)
    field = ".".join(str(part) for part in location) if location else "(record)"
    more = f" (and {exc.error_count() - 1} more problem(s))" if exc.error_count() > 1 else ""
    return f"{where}: field {field}: {first['msg']}{more}"


def record_label(location: list[int | str], data: Mapping[str, Any]) -> str:
    """Consume the leading 'kind, index' of *location* and name that record with its id."""
    if len(location) >= 2 and isinstance(location[0], str) and isinstance(location[1], int):
        kind, index = location[0], location[1]
        del location[:2]
        records = data.get(kind)
        record_id: Any = None
        if isinstance(records, list) and index < len(records):
            record = records[index]
            if isinstance(record, dict):
                record_id = record.get("id")
        suffix = f" (id {record_id})" if record_id is not None else ""
        return f"{kind}[{index}]{suffix}"
    return "corpus"


def _duplicates(kind: str, ids: Iterable[int]) -> list[str]:
    seen: set[int] = set()
    problems: list[str] = []
    for record_id in ids:
        if record_id in seen:
            problems.append(f"{kind} id {record_id}: duplicate id")
        seen.add(record_id)
    return problems


def corpus_problems(corpus: Corpus) -> list[str]:
    """Every cross-record rule the corpus breaks, as messages naming the record."""
    problems: list[str] = []
    problems += _duplicates("users", (u.id for u in corpus.users))
    problems += _duplicates("projects", (p.id for p in corpus.projects))
    problems += _duplicates("statuses", (s.id for s in corpus.statuses))
    problems += _duplicates("types", (t.id for t in corpus.types))
    problems += _duplicates("work_packages", (w.id for w in corpus.work_packages))
    problems += _duplicates("wiki_pages", (w.id for w in corpus.wiki_pages))
    problems += _duplicates("meetings", (m.id for m in corpus.meetings))
    problems += _duplicates("news", (n.id for n in corpus.news))
    problems += _duplicates("documents", (d.id for d in corpus.documents))
    problems += _duplicates("versions", (v.id for v in corpus.versions))
    problems += _duplicates("posts", (p.id for p in corpus.posts))
    embedded = [a.id for w in corpus.work_packages for a in w.attachments]
    problems += _duplicates("attachments", [*embedded, *(a.id for a in corpus.attachments)])
    problems += _duplicates(
        "activities", (a.id for w in corpus.work_packages for a in w.activities)
    )
    problems += _duplicates("agendaItems", (i.id for m in corpus.meetings for i in m.agenda_items))
    problems += _duplicates(
        "outcomes", (o.id for m in corpus.meetings for i in m.agenda_items for o in i.outcomes)
    )
    identifiers: set[str] = set()
    for project in corpus.projects:
        if project.identifier in identifiers:
            problems.append(
                f"projects id {project.id}: duplicate identifier {project.identifier!r}"
            )
        identifiers.add(project.identifier)
    refs = References(
        users={u.id for u in corpus.users},
        projects={p.id for p in corpus.projects},
        statuses={s.id for s in corpus.statuses},
        types={t.id for t in corpus.types},
    )
    for key, user_id in corpus.api_keys.items():
        if user_id not in refs.users:
            # The key itself is a credential: name it by position, never by value.
            position = list(corpus.api_keys).index(key) + 1
            problems.append(f"api_keys entry #{position}: user {user_id} does not exist")
    for project in corpus.projects:
        problems += refs.project_problems(project)
    for work_package in corpus.work_packages:
        problems += refs.work_package_problems(work_package)
    for page in corpus.wiki_pages:
        problems += refs.wiki_page_problems(page)
    for meeting in corpus.meetings:
        problems += refs.meeting_problems(meeting)
    for kind, records in (
        ("news", corpus.news),
        ("documents", corpus.documents),
        ("versions", corpus.versions),
        ("posts", corpus.posts),
    ):
        for record in records:
            problems += refs.project_content_problems(kind, record)
    containers = {
        "work_packages": {w.id for w in corpus.work_packages},
        "wiki_pages": {w.id for w in corpus.wiki_pages},
        "meetings": {m.id for m in corpus.meetings},
        "documents": {d.id for d in corpus.documents},
        "posts": {p.id for p in corpus.posts},
    }
    for attachment in corpus.attachments:
        problems += refs.attachment_problems(attachment, containers)
    return problems


class References:
    """The ids records may point at; checks one record's references against them."""

    def __init__(
        self, *, users: set[int], projects: set[int], statuses: set[int], types: set[int]
    ) -> None:
        self.users = users
        self.projects = projects
        self.statuses = statuses
        self.types = types

    def _user(self, label: str, field: str, user_id: int | None) -> list[str]:
        if user_id is None or user_id in self.users:
            return []
        return [f"{label}: {field} {user_id} does not exist"]

    def _project(self, label: str, project_id: int) -> list[str]:
        if project_id in self.projects:
            return []
        return [f"{label}: project {project_id} does not exist"]

    def project_problems(self, project: Project) -> list[str]:
        label = f"projects id {project.id}"
        problems: list[str] = []
        for member in project.members:
            problems += self._user(label, "member user", member)
        return problems

    def work_package_problems(self, work_package: WorkPackage) -> list[str]:
        label = f"work_packages id {work_package.id}"
        problems = self._project(label, work_package.project)
        if work_package.status not in self.statuses:
            problems.append(f"{label}: status {work_package.status} does not exist")
        if work_package.type not in self.types:
            problems.append(f"{label}: type {work_package.type} does not exist")
        problems += self._user(label, "author user", work_package.author)
        problems += self._user(label, "assignee user", work_package.assignee)
        for activity in work_package.activities:
            problems += self._user(f"{label} activity {activity.id}", "user", activity.user)
        return problems

    def wiki_page_problems(self, page: WikiPage) -> list[str]:
        return self._project(f"wiki_pages id {page.id}", page.project)

    def meeting_problems(self, meeting: Meeting) -> list[str]:
        label = f"meetings id {meeting.id}"
        problems = self._project(label, meeting.project)
        problems += self._user(label, "author user", meeting.author)
        for participant in meeting.participants:
            problems += self._user(label, "participant user", participant)
        for item in meeting.agenda_items:
            item_label = f"{label} agenda item {item.id}"
            problems += self._user(item_label, "author user", item.author)
            problems += self._user(item_label, "presenter user", item.presenter)
            for outcome in item.outcomes:
                problems += self._user(
                    f"{item_label} outcome {outcome.id}", "author user", outcome.author
                )
        return problems

    def project_content_problems(
        self, kind: str, record: News | Document | Version | Post
    ) -> list[str]:
        """News, documents, versions and posts: their project and author must exist."""
        label = f"{kind} id {record.id}"
        problems = self._project(label, record.project)
        if isinstance(record, News | Post):
            problems += self._user(label, "author user", record.author)
        return problems

    def attachment_problems(
        self, attachment: FileAttachment, containers: Mapping[str, set[int]]
    ) -> list[str]:
        """The container and the author of an attachment must exist."""
        label = f"attachments id {attachment.id}"
        problems = self._user(label, "author user", attachment.author)
        kind, container_id = attachment.container.kind, attachment.container.id
        if container_id not in containers[kind]:
            problems.append(f"{label}: container {kind} {container_id} does not exist")
        return problems
