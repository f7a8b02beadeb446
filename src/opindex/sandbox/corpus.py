"""The sandbox corpus file format (version 1) as pydantic models, one per record kind."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field

# Timestamps a corpus leaves out default to this instant, so loading stays deterministic.
CORPUS_TIME = datetime(2026, 1, 1, 0, 0, tzinfo=UTC)

MEETING_STATES = ("open", "draft", "in_progress", "cancelled", "closed")


def _none_to_empty_list(value: Any) -> Any:
    return [] if value is None else value


def _none_to_false(value: Any) -> Any:
    return False if value is None else value


def _as_utc(value: datetime) -> datetime:
    """Naive timestamps are read as UTC; every stored timestamp is timezone-aware."""
    if value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    return value.astimezone(UTC)


Timestamp = Annotated[datetime, AfterValidator(_as_utc)]
IdList = Annotated[list[int], BeforeValidator(_none_to_empty_list)]
TextList = Annotated[list[str], BeforeValidator(_none_to_empty_list)]
Flag = Annotated[bool, BeforeValidator(_none_to_false)]


class CorpusRecord(BaseModel):
    """Common configuration: unknown keys are ignored, corpus keys are camelCase aliases."""

    model_config = ConfigDict(extra="ignore", populate_by_name=True, frozen=True)

    def to_corpus_json(self) -> dict[str, Any]:
        """The record as it would appear in a corpus file."""
        return self.model_dump(mode="json", by_alias=True)


class Stamped(CorpusRecord):
    """A record with creation and change timestamps."""

    created_at: Timestamp = Field(default=CORPUS_TIME, alias="createdAt")
    updated_at: Timestamp = Field(default=CORPUS_TIME, alias="updatedAt")


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


# Record kinds the control endpoint ``/_sandbox/mutate`` can change.
MutableKind = Literal["work_packages", "wiki_pages", "meetings", "projects"]
MUTABLE_KINDS: tuple[MutableKind, ...] = ("work_packages", "wiki_pages", "meetings", "projects")
RECORD_MODELS: dict[MutableKind, type[Stamped]] = {
    "work_packages": WorkPackage,
    "wiki_pages": WikiPage,
    "meetings": Meeting,
    "projects": Project,
}
