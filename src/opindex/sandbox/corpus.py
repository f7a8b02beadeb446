"""The sandbox corpus file format (version 1) as pydantic models, one per record kind."""

from __future__ import annotations

from datetime import date
from typing import Annotated, Literal, get_args

from pydantic import AfterValidator, BeforeValidator, Field

from opindex.sandbox.corpus_base import CORPUS_TIME as CORPUS_TIME
from opindex.sandbox.corpus_base import CorpusRecord as CorpusRecord
from opindex.sandbox.corpus_base import Flag, IdList, TextList, none_to_empty_list, one_of
from opindex.sandbox.corpus_base import Stamped as Stamped
from opindex.sandbox.corpus_base import Timestamp as Timestamp
from opindex.sandbox.corpus_files import FileAttachment as FileAttachment

MEETING_STATES = ("open", "draft", "in_progress", "cancelled", "closed")
_none_to_empty_list = none_to_empty_list


class User(Stamped):
    """An account; ``api_keys`` of the corpus map keys to user ids."""

    id: int = Field(gt=0)
    login: str
    name: str
    admin: Flag = False
    email: str | None = None


class Project(Stamped):
    """A project; ``members`` can see it, as can everyone if ``public`` and admins always."""

    id: int = Field(gt=0)
    identifier: str
    name: str
    active: bool = True
    public: Flag = False
    members: IdList = Field(default_factory=list)
    description: str | None = None
    status_explanation: str | None = Field(default=None, alias="statusExplanation")


class Status(CorpusRecord):
    """A work-package status; closed statuses are hidden by the default filter."""

    id: int = Field(gt=0)
    name: str
    is_closed: Flag = Field(default=False, alias="isClosed")


class WorkPackageType(CorpusRecord):
    """A work-package type (Task, Bug, ...)."""

    id: int = Field(gt=0)
    name: str


class Activity(Stamped):
    """A journal entry of a work package: a comment, or only change ``details``."""

    id: int = Field(gt=0)
    user: int
    comment: str | None = None
    internal: Flag = False
    details: TextList = Field(default_factory=list)


class Relation(CorpusRecord):
    """A relation from the work package holding it to work package ``to``."""

    id: int = Field(gt=0)
    type: str = "relates"
    to: int


class Attachment(CorpusRecord):
    """A file attached to a work package (its name and size only)."""

    id: int = Field(gt=0)
    file_name: str = Field(alias="fileName")
    file_size: int = Field(default=0, alias="fileSize")


class WorkPackage(Stamped):
    """A work package with its journal (``activities``), relations and attachments."""

    id: int = Field(gt=0)
    project: int
    subject: str
    description: str | None = None
    type: int
    status: int
    author: int
    assignee: int | None = None
    lock_version: int = Field(default=0, alias="lockVersion")
    activities: Annotated[list[Activity], BeforeValidator(_none_to_empty_list)] = Field(
        default_factory=list
    )
    relations: Annotated[list[Relation], BeforeValidator(_none_to_empty_list)] = Field(
        default_factory=list
    )
    attachments: Annotated[list[Attachment], BeforeValidator(_none_to_empty_list)] = Field(
        default_factory=list
    )


class WikiPage(Stamped):
    """A wiki page; ids may have gaps, as in a real instance."""

    id: int = Field(gt=0)
    project: int
    title: str
    slug: str | None = None
    text: str | None = None
    lock_version: int = Field(default=0, alias="lockVersion")


class Outcome(Stamped):
    """An outcome of an agenda item (17.6+); ``kind`` is passed through as given."""

    id: int = Field(gt=0)
    kind: str = "information"
    notes: str | None = None
    author: int | None = None


class AgendaItem(Stamped):
    """An agenda item of a meeting (17.4+), with its outcomes."""

    id: int = Field(gt=0)
    title: str
    notes: str | None = None
    position: int = 1
    duration_in_minutes: int | None = Field(default=None, alias="durationInMinutes")
    author: int | None = None
    presenter: int | None = None
    outcomes: Annotated[list[Outcome], BeforeValidator(_none_to_empty_list)] = Field(
        default_factory=list
    )


def _known_state(value: str) -> str:
    if value not in MEETING_STATES:
        raise ValueError(f"state must be one of {', '.join(MEETING_STATES)}")
    return value


class Meeting(Stamped):
    """A meeting; ``duration`` is in hours."""

    id: int = Field(gt=0)
    project: int
    title: str
    location: str | None = None
    start_time: Timestamp = Field(default=CORPUS_TIME, alias="startTime")
    duration: float = Field(default=1.0, ge=0)
    state: Annotated[str, AfterValidator(_known_state)] = "open"
    author: int
    participants: IdList = Field(default_factory=list)
    lock_version: int = Field(default=0, alias="lockVersion")
    agenda_items: Annotated[list[AgendaItem], BeforeValidator(_none_to_empty_list)] = Field(
        default_factory=list, alias="agendaItems"
    )


class News(Stamped):
    """A news item of a project (the API renders no ``updatedAt`` for news)."""

    id: int = Field(gt=0)
    project: int
    title: str
    summary: str = ""
    description: str | None = None
    author: int


class Document(Stamped):
    """A document of a project (title, description and attachments)."""

    id: int = Field(gt=0)
    project: int
    title: str
    description: str | None = None


VERSION_STATUSES = ("open", "locked", "closed")
VERSION_SHARINGS = ("none", "descendants", "hierarchy", "tree", "system")


class Version(Stamped):
    """A version defined by ``project``; ``sharing: system`` makes it visible everywhere."""

    id: int = Field(gt=0)
    project: int
    name: str
    description: str | None = None
    status: Annotated[str, one_of(VERSION_STATUSES)] = "open"
    sharing: Annotated[str, one_of(VERSION_SHARINGS)] = "none"
    start_date: date | None = Field(default=None, alias="startDate")
    end_date: date | None = Field(default=None, alias="endDate")


class Post(Stamped):
    """A forum post (message) of a project; the API shows its subject only."""

    id: int = Field(gt=0)
    project: int
    subject: str
    author: int | None = None


class Corpus(CorpusRecord):
    """A whole corpus file. Cross-record rules are checked in ``corpus_check``."""

    version: Literal[1]
    api_keys: dict[str, int] = Field(default_factory=dict)
    users: list[User] = Field(default_factory=list)
    projects: list[Project] = Field(default_factory=list)
    statuses: list[Status] = Field(default_factory=list)
    types: list[WorkPackageType] = Field(default_factory=list)
    work_packages: Annotated[list[WorkPackage], BeforeValidator(_none_to_empty_list)] = Field(
        default_factory=list
    )
    wiki_pages: Annotated[list[WikiPage], BeforeValidator(_none_to_empty_list)] = Field(
        default_factory=list
    )
    meetings: Annotated[list[Meeting], BeforeValidator(_none_to_empty_list)] = Field(
        default_factory=list
    )
    news: Annotated[list[News], BeforeValidator(_none_to_empty_list)] = Field(default_factory=list)
    documents: Annotated[list[Document], BeforeValidator(_none_to_empty_list)] = Field(
        default_factory=list
    )
    versions: Annotated[list[Version], BeforeValidator(_none_to_empty_list)] = Field(
        default_factory=list
    )
    posts: Annotated[list[Post], BeforeValidator(_none_to_empty_list)] = Field(default_factory=list)
    attachments: Annotated[list[FileAttachment], BeforeValidator(_none_to_empty_list)] = Field(
        default_factory=list
    )


# Record kinds the control endpoint ``/_sandbox/mutate`` can change.
MutableKind = Literal[
    "work_packages",
    "wiki_pages",
    "meetings",
    "projects",
    "news",
    "documents",
    "versions",
    "posts",
    "attachments",
]
MUTABLE_KINDS: tuple[MutableKind, ...] = get_args(MutableKind)
RECORD_MODELS: dict[MutableKind, type[Stamped]] = {
    "work_packages": WorkPackage,
    "wiki_pages": WikiPage,
    "meetings": Meeting,
    "projects": Project,
    "news": News,
    "documents": Document,
    "versions": Version,
    "posts": Post,
    "attachments": FileAttachment,
}
