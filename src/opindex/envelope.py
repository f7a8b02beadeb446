"""Search requests and the response envelope shared by the service, the CLI and MCP tools."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from opindex.records import AttributeValue
from opindex.search import Kind

Source = Literal["auto", "index", "live"]
AnsweredBy = Literal["index", "live"]
IndexState = Literal["fresh", "stale", "missing", "damaged"]
FallbackStrategyName = Literal["wildcard_suffix", "drop_term", "concept_expansion"]
MatchModeName = Literal["fuzzy", "exact"]
StatusFilter = Literal["open", "closed", "all"]
SortOrder = Literal["relevance", "updated"]
HowMatched = Literal["id", "exact", "prefix", "substring", "typo", "stem", "concept"]

MAX_QUERY_LENGTH = 1000
"""Longest query accepted, in characters; longer queries are rejected with a clear error."""
MAX_LIMIT = 100
"""Most results one search returns."""
DEFAULT_LIMIT = 20
MAX_ID = 2**63 - 1
"""Largest id accepted anywhere (OpenProject's ids are 64-bit signed; Tantivy's too)."""


class SearchRequest(BaseModel):
    """One search, as every edge (CLI, MCP) hands it to the service."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Kind
    query: str = Field(default="", max_length=MAX_QUERY_LENGTH)
    match_mode: MatchModeName = "fuzzy"
    limit: int = Field(default=DEFAULT_LIMIT, ge=1, le=MAX_LIMIT, strict=True)
    source: Source = "auto"
    fallback: bool = True
    project_id: int | None = Field(default=None, ge=1, le=MAX_ID, strict=True)
    status: StatusFilter | list[Annotated[int, Field(ge=1, le=MAX_ID, strict=True)]] = "all"
    type_id: int | None = Field(default=None, ge=1, le=MAX_ID, strict=True)
    assignee_id: int | None = Field(default=None, ge=1, le=MAX_ID, strict=True)
    author_id: int | None = Field(default=None, ge=1, le=MAX_ID, strict=True)
    updated_after: datetime | None = None
    """Only records updated at or after this moment (aware, UTC)."""
    updated_before: datetime | None = None
    """Only records updated strictly before this moment (aware, UTC)."""
    sort: SortOrder = "relevance"
    cursor: str | None = Field(default=None, max_length=512)
    """Continue from the ``next_cursor`` of an earlier answer to the same request."""


class FieldMatchOut(BaseModel):
    """One field of a result that matched the query."""

    field: str
    score: float
    snippet: str | None = None
    ref: int | None = None


class MatchedAgendaItem(BaseModel):
    """A meeting agenda item whose title, notes or outcomes matched."""

    id: int
    title: str
    snippet: str | None = None


class MatchedComment(BaseModel):
    """A work-package comment (activity) that matched."""

    id: int
    snippet: str | None = None


class MatchedAttachment(BaseModel):
    """An attached file whose text matched, with the matching excerpt."""

    id: int
    file_name: str = Field(alias="fileName")
    snippet: str | None = None

    model_config = ConfigDict(populate_by_name=True)


class WordMatch(BaseModel):
    """One query word a result matched, how, and the record's word that matched it."""

    word: str = Field(description="The query word (normalized: lower case, no accents).")
    how: HowMatched = Field(
        description="id: the query is this record's id or link; exact: the word itself; "
        "prefix: a longer word starting with it; substring: a word containing it; "
        "typo: a similar word (a few letters differ); "
        "stem: a word sharing its first letters (decide, decision); "
        "concept: a related term from the thesaurus."
    )
    token: str = Field(description="The record's word that matched.")


class ProjectRef(BaseModel):
    """The project a record belongs to."""

    id: int | None = None
    name: str | None = None


class SearchResult(BaseModel):
    """One ranked record."""

    model_config = ConfigDict(populate_by_name=True)

    id: int
    kind: Kind
    title: str
    score: float
    matched_fields: list[str] = Field(default_factory=list, alias="matchedFields")
    snippet: str | None = None
    matches: list[FieldMatchOut] = Field(default_factory=list)
    project: ProjectRef | None = None
    updated_at: datetime | None = Field(default=None, alias="updatedAt")
    url: str | None = None
    attributes: dict[str, AttributeValue] = Field(default_factory=dict)
    match_type: str | None = Field(default=None, alias="matchType")
    matched_agenda_items: list[MatchedAgendaItem] | None = Field(
        default=None, alias="matchedAgendaItems"
    )
    matched_comments: list[MatchedComment] | None = Field(default=None, alias="matchedComments")
    matched_attachments: list[MatchedAttachment] | None = Field(
        default=None, alias="matchedAttachments"
    )
    matched_words: list[WordMatch] = Field(
        default_factory=list,
        alias="matchedWords",
        description="The query words this record matched, and how.",
    )


class SearchMeta(BaseModel):
    """Where an answer came from and how much to trust it (ARCHITECTURE invariant 4)."""

    tenant: str
    kind: Kind
    source: AnsweredBy
    index_state: IndexState
    indexed_at: datetime | None = None
    age_seconds: float | None = None
    degraded: bool = False
    enrichment_failures: int = 0
    wildcard_fallback: bool = False
    fallback_strategy: FallbackStrategyName | None = None
    original_query: str
    effective_query: str
    match_mode: MatchModeName = "fuzzy"
    sort: SortOrder = "relevance"
    total: int = 0
    notes: list[str] = Field(default_factory=list)
    unmatched_words: list[str] = Field(
        default_factory=list,
        description="Query words no returned result matched (they did not narrow the answer).",
    )
    notice: str | None = Field(
        default=None,
        description="What the reader must know before the results: words nothing matched, "
        "words matched only approximately, or why the query found nothing.",
    )
    next_cursor: str | None = Field(
        default=None,
        description="Pass as `cursor` (same query and filters) for the next page; "
        "absent on the last page.",
    )


class SearchResponse(BaseModel):
    """The envelope: ranked results plus meta."""

    results: list[SearchResult]
    meta: SearchMeta

    def to_json_dict(self) -> dict[str, object]:
        """The wire form (camelCase result keys, snake_case meta keys, ISO datetimes)."""
        return self.model_dump(mode="json", by_alias=True)


# --- Responses of the other service calls (records, listings, status) ----------------


class KindAnswer(BaseModel):
    """How one kind of a search across kinds was answered."""

    kind: Kind
    source: AnsweredBy
    index_state: IndexState
    total: int = 0
    fallback_strategy: FallbackStrategyName | None = None
    effective_query: str
    notes: list[str] = Field(default_factory=list)


class KindNotSearched(BaseModel):
    """A kind a search across kinds could not search, and why (in words for the caller)."""

    kind: Kind
    reason: str


class GlobalSearchMeta(BaseModel):
    """Where the answers of a search across kinds came from, kind by kind."""

    tenant: str
    original_query: str
    match_mode: MatchModeName = "fuzzy"
    total: int = 0
    kinds: list[KindAnswer] = Field(default_factory=list)
    not_searched: list[KindNotSearched] = Field(default_factory=list)
    indexed_at: datetime | None = None
    age_seconds: float | None = None
    sort: SortOrder = "relevance"
    unmatched_words: list[str] = Field(
        default_factory=list, description="Query words no returned result matched."
    )
    notice: str | None = Field(
        default=None, description="What the reader must know before the results."
    )
    next_cursor: str | None = Field(
        default=None, description="Pass as `cursor` (same query) for the next page."
    )


class GlobalSearchResponse(BaseModel):
    """One ranking over several kinds: each result names its kind; scores compare across
    kinds (one scorer, each kind's fields weighted on the same scale)."""

    results: list[SearchResult]
    meta: GlobalSearchMeta

    def to_json_dict(self) -> dict[str, object]:
        """The wire form, like ``SearchResponse.to_json_dict``."""
        return self.model_dump(mode="json", by_alias=True)


class FieldValueOut(BaseModel):
    """One stored text value of a record field; ``ref`` names its sub-record, if any."""

    text: str
    ref: int | None = None


class RecordOut(BaseModel):
    """A whole record as the index stores it (or the live path read it)."""

    model_config = ConfigDict(populate_by_name=True)

    id: int
    kind: Kind
    title: str
    project: ProjectRef | None = None
    updated_at: datetime | None = Field(default=None, alias="updatedAt")
    url: str | None = None
    attributes: dict[str, AttributeValue] = Field(default_factory=dict)
    fields: dict[str, list[FieldValueOut]] = Field(default_factory=dict)


class ReadMeta(BaseModel):
    """Where a non-search answer came from (same meaning as in SearchMeta)."""

    tenant: str
    source: AnsweredBy
    index_state: IndexState
    indexed_at: datetime | None = None
    age_seconds: float | None = None
    notes: list[str] = Field(default_factory=list)


class RelationOut(BaseModel):
    """A relation seen from the record: ``blocks`` / ``blocked`` / ``relates`` … another."""

    type: str
    id: int | None = None
    title: str | None = None


class RecordResponse(BaseModel):
    """``get_record``: one record plus where it was read; a work package's relations and
    attachment names when they were asked for (read live)."""

    record: RecordOut
    meta: ReadMeta
    relations: list[RelationOut] | None = None
    attachments: list[str] | None = None

    def to_json_dict(self) -> dict[str, object]:
        """The wire form (camelCase record keys, ISO datetimes)."""
        return self.model_dump(mode="json", by_alias=True)


class UserRef(BaseModel):
    """A user (author of an activity)."""

    id: int | None = None
    name: str | None = None


class ActivityOut(BaseModel):
    """One work-package activity (journal entry), ranked when a query was given."""

    model_config = ConfigDict(populate_by_name=True)

    id: int
    score: float
    comment: str
    snippet: str | None = None
    internal: bool = False
    user: UserRef | None = None
    created_at: datetime | None = Field(default=None, alias="createdAt")


class ActivityListResponse(BaseModel):
    """``list_activities``: a work package's activities, best first when ranked."""

    model_config = ConfigDict(populate_by_name=True)

    work_package_id: int = Field(alias="workPackageId")
    results: list[ActivityOut]
    ranked: bool
    total: int
    meta: ReadMeta

    def to_json_dict(self) -> dict[str, object]:
        """The wire form."""
        return self.model_dump(mode="json", by_alias=True)


class WorkPackageListResponse(BaseModel):
    """``list_work_packages``: one page of OpenProject's own filtered listing."""

    results: list[SearchResult]
    total: int
    meta: ReadMeta
    next_cursor: str | None = Field(
        default=None, description="Pass as `cursor` (same filters) for the next page."
    )

    def to_json_dict(self) -> dict[str, object]:
        """The wire form."""
        return self.model_dump(mode="json", by_alias=True)


class LookupEntry(BaseModel):
    """A project, user, status or type: ``handle`` is a project's identifier or a user's
    login; ``closed`` a status's closed flag."""

    id: int
    name: str
    handle: str | None = None
    closed: bool | None = None


class LookupResponse(BaseModel):
    """``lookup``: what the account sees of one kind; ``me`` is its own user id."""

    kind: str
    results: list[LookupEntry]
    me: int | None = None
    meta: ReadMeta
