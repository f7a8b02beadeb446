"""The live corpus the server answers from: lookups, visibility, and validated mutations."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, TypeVar

from pydantic import ValidationError

from opindex.errors import CorpusError, NotFoundError
from opindex.sandbox.corpus import (
    RECORD_MODELS,
    Corpus,
    Document,
    FileAttachment,
    Meeting,
    MutableKind,
    News,
    Post,
    Project,
    Stamped,
    Status,
    User,
    Version,
    WikiPage,
    WorkPackage,
    WorkPackageType,
)
from opindex.sandbox.corpus_check import References, describe_validation_error
from opindex.sandbox.file_content import AttachmentFiles


def now_utc() -> datetime:
    """The current time, truncated to milliseconds (the precision the API renders)."""
    now = datetime.now(UTC)
    return now.replace(microsecond=now.microsecond // 1000 * 1000)


class SandboxStore:
    """Every record of the corpus by id. ``generation`` changes on every mutation."""

    def __init__(self, corpus: Corpus) -> None:
        self.api_keys: dict[str, int] = dict(corpus.api_keys)
        self.users: dict[int, User] = {u.id: u for u in corpus.users}
        self.projects: dict[int, Project] = {p.id: p for p in corpus.projects}
        self.statuses: dict[int, Status] = {s.id: s for s in corpus.statuses}
        self.types: dict[int, WorkPackageType] = {t.id: t for t in corpus.types}
        self.work_packages: dict[int, WorkPackage] = {w.id: w for w in corpus.work_packages}
        self.wiki_pages: dict[int, WikiPage] = {w.id: w for w in corpus.wiki_pages}
        self.meetings: dict[int, Meeting] = {m.id: m for m in corpus.meetings}
        self.news: dict[int, News] = {n.id: n for n in corpus.news}
        self.documents: dict[int, Document] = {d.id: d for d in corpus.documents}
        self.versions: dict[int, Version] = {v.id: v for v in corpus.versions}
        self.posts: dict[int, Post] = {p.id: p for p in corpus.posts}
        self.attachments: dict[int, FileAttachment] = {a.id: a for a in corpus.attachments}
        self.files = AttachmentFiles()
        self.generation = 0
        self._visibility_cache: dict[tuple[int, int, bool], frozenset[int]] = {}

    # --- identity and visibility ---------------------------------------------------------

    def user_for_key(self, key: str) -> User | None:
        """The user an API key belongs to, if the key is known."""
        user_id = self.api_keys.get(key)
        return None if user_id is None else self.users.get(user_id)

    def _project_ids(self, user: User, *, for_content: bool) -> frozenset[int]:
        cache_key = (self.generation, user.id, for_content)
        cached = self._visibility_cache.get(cache_key)
        if cached is not None:
            return cached
        visible = frozenset(
            project.id
            for project in self.projects.values()
            if self._sees(user, project, for_content=for_content)
        )
        if len(self._visibility_cache) > 256:
            self._visibility_cache.clear()
        self._visibility_cache[cache_key] = visible
        return visible

    @staticmethod
    def _sees(user: User, project: Project, *, for_content: bool) -> bool:
        # Archived projects: only admins see the project itself; nobody sees its content.
        if not project.active:
            return user.admin and not for_content
        return user.admin or project.public or user.id in project.members

    def visible_projects(self, user: User) -> frozenset[int]:
        """Projects *user* may list or fetch."""
        return self._project_ids(user, for_content=False)

    def content_projects(self, user: User) -> frozenset[int]:
        """Projects whose work packages, wiki pages and meetings *user* may see."""
        return self._project_ids(user, for_content=True)

    def visible_work_package(self, user: User, work_package_id: int) -> WorkPackage:
        """The work package, or ``NotFoundError`` if absent or invisible."""
        work_package = self.work_packages.get(work_package_id)
        if work_package is None or work_package.project not in self.content_projects(user):
            raise not_found()
        return work_package

    def visible_wiki_page(self, user: User, page_id: int) -> WikiPage:
        """The wiki page, or ``NotFoundError`` if absent or invisible."""
        page = self.wiki_pages.get(page_id)
        if page is None or page.project not in self.content_projects(user):
            raise not_found()
        return page

    def visible_meeting(self, user: User, meeting_id: int) -> Meeting:
        """The meeting, or ``NotFoundError`` if absent or invisible."""
        meeting = self.meetings.get(meeting_id)
        if meeting is None or meeting.project not in self.content_projects(user):
            raise not_found()
        return meeting

    def visible_news(self, user: User, news_id: int) -> News:
        """The news item, or ``NotFoundError`` if absent or invisible."""
        return _visible(self.news.get(news_id), self.content_projects(user))

    def visible_document(self, user: User, document_id: int) -> Document:
        """The document, or ``NotFoundError`` if absent or invisible."""
        return _visible(self.documents.get(document_id), self.content_projects(user))

    def visible_post(self, user: User, post_id: int) -> Post:
        """The forum post, or ``NotFoundError`` if absent or invisible."""
        return _visible(self.posts.get(post_id), self.content_projects(user))

    def sees_version(self, user: User, version: Version) -> bool:
        """Versions shared system-wide are seen by everyone (who sees any project's
        content); others only with their defining project's content."""
        content = self.content_projects(user)
        return version.project in content or (version.sharing == "system" and bool(content))

    def visible_version(self, user: User, version_id: int) -> Version:
        """The version, or ``NotFoundError`` if absent or invisible."""
        version = self.versions.get(version_id)
        if version is None or not self.sees_version(user, version):
            raise not_found()
        return version

    def container_project(self, kind: str, container_id: int) -> int | None:
        """The project of an attachment container, ``None`` if the container is missing."""
        tables: dict[str, dict[int, Any]] = {
            "work_packages": self.work_packages,
            "wiki_pages": self.wiki_pages,
            "meetings": self.meetings,
            "documents": self.documents,
            "posts": self.posts,
        }
        container = tables[kind].get(container_id)
        return None if container is None else int(container.project)

    def visible_attachment(self, user: User, attachment_id: int) -> FileAttachment:
        """The attachment if its container is visible, else ``NotFoundError``."""
        attachment = self.attachments.get(attachment_id)
        if attachment is None:
            raise not_found()
        project = self.container_project(attachment.container.kind, attachment.container.id)
        if project is None or project not in self.content_projects(user):
            raise not_found()
        return attachment

    def attachments_of(self, kind: str, container_id: int) -> list[FileAttachment]:
        """The attachments of one container, by id (the caller checked its visibility)."""
        found = [
            a
            for a in self.attachments.values()
            if a.container.kind == kind and a.container.id == container_id
        ]
        return sorted(found, key=lambda a: a.id)

    def visible_project(self, user: User, project_id: int) -> Project:
        """The project, or ``NotFoundError`` if absent or invisible."""
        project = self.projects.get(project_id)
        if project is None or project.id not in self.visible_projects(user):
            raise not_found()
        return project

    # --- mutations (the /_sandbox/mutate control endpoint) -------------------------------

    def _table(self, kind: MutableKind) -> dict[int, Any]:
        tables: dict[MutableKind, dict[int, Any]] = {
            "work_packages": self.work_packages,
            "wiki_pages": self.wiki_pages,
            "meetings": self.meetings,
            "projects": self.projects,
            "news": self.news,
            "documents": self.documents,
            "versions": self.versions,
            "posts": self.posts,
            "attachments": self.attachments,
        }
        return tables[kind]

    def contains(self, kind: MutableKind, record_id: object) -> bool:
        """Whether a record of *kind* with this id exists (visible or not)."""
        return record_id in self._table(kind)

    def upsert(self, kind: MutableKind, record: dict[str, Any]) -> Stamped:
        """Create or replace one record; keys absent from *record* keep their old values.

        ``updatedAt`` is stamped with the current time unless *record* carries one, and
        ``lockVersion`` moves on by one. Raises ``CorpusError`` naming the problem.
        """
        record_id = record.get("id")
        if not isinstance(record_id, int) or isinstance(record_id, bool):
            raise CorpusError(f"{kind} record: field id must be an integer")
        table = self._table(kind)
        existing: Stamped | None = table.get(record_id)
        stamp = now_utc().isoformat().replace("+00:00", "Z")
        merged: dict[str, Any] = existing.to_corpus_json() if existing is not None else {}
        merged.update(record)
        if record.get("updatedAt") is None:
            merged["updatedAt"] = stamp
        if existing is None and record.get("createdAt") is None:
            merged["createdAt"] = stamp
        _stamp_children(merged.get("activities"), stamp)
        for item in merged.get("agendaItems") or []:
            _stamp_children([item], stamp)
            if isinstance(item, dict):
                _stamp_children(item.get("outcomes"), stamp)
        if existing is not None and "lockVersion" in merged and "lockVersion" not in record:
            merged["lockVersion"] = int(merged["lockVersion"]) + 1
        try:
            parsed = RECORD_MODELS[kind].model_validate(merged)
        except ValidationError as exc:
            detail = describe_validation_error(exc, {})
            raise CorpusError(f"{kind} id {record_id}: {detail.removeprefix('corpus: ')}") from exc
        problems = self._reference_problems(kind, parsed)
        if problems:
            raise CorpusError(problems[0])
        table[record_id] = parsed
        if kind == "attachments":
            self.files.forget(record_id)
        self.generation += 1
        return parsed

    def delete(self, kind: MutableKind, record_id: int) -> None:
        """Remove one record (a project takes its content with it); ``NotFoundError`` if absent."""
        table = self._table(kind)
        if record_id not in table:
            raise NotFoundError(
                f"{kind} id {record_id} does not exist", status=404, error_identifier="NotFound"
            )
        del table[record_id]
        if kind == "projects":
            contents: tuple[dict[int, Any], ...] = (
                self.work_packages,
                self.wiki_pages,
                self.meetings,
                self.news,
                self.documents,
                self.versions,
                self.posts,
            )
            for content in contents:
                doomed = [key for key, value in content.items() if value.project == record_id]
                for key in doomed:
                    del content[key]
        # Attachments go with their container, as in OpenProject.
        orphans = [
            a.id
            for a in self.attachments.values()
            if self.container_project(a.container.kind, a.container.id) is None
        ]
        for orphan in orphans:
            del self.attachments[orphan]
            self.files.forget(orphan)
        if kind == "attachments":
            self.files.forget(record_id)
        self.generation += 1

    def _reference_problems(self, kind: MutableKind, record: Stamped) -> list[str]:
        refs = References(
            users=set(self.users),
            projects=set(self.projects),
            statuses=set(self.statuses),
            types=set(self.types),
        )
        if isinstance(record, News | Document | Version | Post):
            return refs.project_content_problems(kind, record)
        if isinstance(record, FileAttachment):
            problems = refs.attachment_problems(record, self._container_ids())
            embedded = {a.id for wp in self.work_packages.values() for a in wp.attachments}
            if record.id in embedded:
                problems.append(
                    f"attachments id {record.id}: the id is taken by an attachment listed "
                    "inside a work package"
                )
            return problems
        if isinstance(record, WorkPackage):
            problems = refs.work_package_problems(record)
            taken = {
                activity.id
                for other in self.work_packages.values()
                if other.id != record.id
                for activity in other.activities
            }
            problems += [
                f"work_packages id {record.id}: activity id {a.id} belongs to another work package"
                for a in record.activities
                if a.id in taken
            ]
            return problems
        if isinstance(record, WikiPage):
            return refs.wiki_page_problems(record)
        if isinstance(record, Meeting):
            problems = refs.meeting_problems(record)
            taken_items = {
                item.id
                for other in self.meetings.values()
                if other.id != record.id
                for item in other.agenda_items
            }
            problems += [
                f"meetings id {record.id}: agenda item id {i.id} belongs to another meeting"
                for i in record.agenda_items
                if i.id in taken_items
            ]
            return problems
        if isinstance(record, Project):
            problems = refs.project_problems(record)
            clash = [
                p.id
                for p in self.projects.values()
                if p.identifier == record.identifier and p.id != record.id
            ]
            if clash:
                problems.append(
                    f"projects id {record.id}: identifier {record.identifier!r} is taken by "
                    f"project {clash[0]}"
                )
            return problems
        raise CorpusError(f"{kind}: records of this kind cannot be changed")

    def _container_ids(self) -> dict[str, set[int]]:
        return {
            "work_packages": set(self.work_packages),
            "wiki_pages": set(self.wiki_pages),
            "meetings": set(self.meetings),
            "documents": set(self.documents),
            "posts": set(self.posts),
        }


ProjectContent = TypeVar("ProjectContent", News, Document, Post)


def _visible(record: ProjectContent | None, content_projects: frozenset[int]) -> ProjectContent:
    if record is None or record.project not in content_projects:
        raise not_found()
    return record


def _stamp_children(children: Any, stamp: str) -> None:
    """Sub-records added by a mutation without timestamps were created just now."""
    if not isinstance(children, list):
        return
    for child in children:
        if isinstance(child, dict):
            if child.get("createdAt") is None:
                child["createdAt"] = stamp
            if child.get("updatedAt") is None:
                child["updatedAt"] = child["createdAt"]


def not_found() -> NotFoundError:
    """The error OpenProject returns for a missing or invisible resource."""
    return NotFoundError(
        "The requested resource could not be found.", status=404, error_identifier="NotFound"
    )
