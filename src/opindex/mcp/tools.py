"""The MCP tools: typed signatures (the published schemas) over the plain handlers.

Each tool resolves the caller, builds the request, lets a handler in
:mod:`opindex.mcp.handlers` do the work, and returns structured content plus a text
rendering. Library errors become error results whose text tells the model what to change.
Every tool is read-only.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Annotated, Any, cast

from mcp.server.mcpserver import Context
from mcp.server.mcpserver.tools import Tool
from mcp.types import CallToolResult, ToolAnnotations
from pydantic import ValidationError

from opindex.envelope import (
    DEFAULT_LIMIT,
    ActivityListResponse,
    MatchModeName,
    SearchRequest,
    SortOrder,
    Source,
)
from opindex.errors import OpindexError
from opindex.mcp import handlers
from opindex.mcp.app_state import AppState
from opindex.mcp.arguments import (
    AssigneeRef,
    AuthorRef,
    DetailChoice,
    Fallback,
    Limit,
    LookupKind,
    LookupText,
    MatchMode,
    OptionalQuery,
    ProjectRef,
    QueryText,
    RecordId,
    SortChoice,
    SourceChoice,
    StatusChoice,
    SubjectFilter,
    TypeRef,
    UpdatedAfter,
    UpdatedBefore,
    WorkPackageId,
)
from opindex.mcp.callers import Caller, Refusal
from opindex.mcp.handlers import LIVE_ONLY
from opindex.mcp.rendering import (
    render_activities,
    render_lookup,
    render_record,
    render_status,
    render_work_package_list,
)
from opindex.mcp.results import (
    error_result,
    failure_result,
    model_result,
    search_result,
    text_result,
    wire_result,
)
from opindex.mcp.schema_trim import outline_schema, trim_schema
from opindex.mcp.status_report import IndexStatusReport
from opindex.mcp.wire import (
    Detail,
    LookupOut,
    RecordOutWire,
    SearchOut,
    listing_out,
    lookup_out,
    prune_json,
    record_out,
)
from opindex.moments import parse_moment
from opindex.search.document import Kind
from opindex.service.named_filters import FilterNames

SearchResult = Annotated[CallToolResult, SearchOut]
ListResult = Annotated[CallToolResult, SearchOut]
READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True)


def _state(ctx: Context) -> AppState:
    return cast(AppState, ctx.request_context.lifespan_context)


async def _serve(
    ctx: Context, work: Callable[[AppState, Caller], Awaitable[CallToolResult]]
) -> CallToolResult:
    """Resolve the caller, run ``work``, turn library errors into error results."""
    state = _state(ctx)
    caller: Caller | Refusal = state.caller(ctx.headers)
    if isinstance(caller, Refusal):
        return error_result(caller.message)
    try:
        return await work(state, caller)
    except OpindexError as error:
        return failure_result(error, caller)
    except ValidationError as error:  # arguments the service's request model refuses
        return error_result(
            f"Invalid arguments: {error.errors()[0]['msg']}. Change them and retry."
        )


async def _serve_tenant(
    ctx: Context, work: Callable[[AppState, str], Awaitable[CallToolResult]]
) -> CallToolResult:
    """Like ``_serve`` for reads that need a configured tenant (not a live-only caller)."""

    async def with_tenant(state: AppState, caller: Caller) -> CallToolResult:
        if caller.tenant is None:
            return error_result(LIVE_ONLY[0].upper() + LIVE_ONLY[1:] + ".")
        return await work(state, caller.tenant)

    return await _serve(ctx, with_tenant)


async def _search(
    ctx: Context, request: SearchRequest, names: FilterNames, detail: Detail
) -> CallToolResult:
    async def work(state: AppState, caller: Caller) -> CallToolResult:
        response = await handlers.search(state, caller, request, names)
        return search_result(response, detail)

    return await _serve(ctx, work)


def _request(
    kind: Kind,
    query: str,
    match_mode: MatchModeName,
    limit: int,
    source: Source,
    fallback: bool,
    window: tuple[str | None, str | None],
    sort: SortOrder,
) -> SearchRequest:
    return SearchRequest(
        kind=kind,
        query=query,
        match_mode=match_mode,
        limit=limit,
        source=source,
        fallback=fallback,
        updated_after=parse_moment(window[0], "updatedAfter"),
        updated_before=parse_moment(window[1], "updatedBefore"),
        sort=sort,
    )


async def openproject_search_work_packages(
    ctx: Context,
    query: QueryText = "",
    matchMode: MatchMode = "fuzzy",
    limit: Limit = DEFAULT_LIMIT,
    project: ProjectRef = None,
    status: StatusChoice = "all",
    type: TypeRef = None,
    assignee: AssigneeRef = None,
    author: AuthorRef = None,
    updatedAfter: UpdatedAfter = None,
    updatedBefore: UpdatedBefore = None,
    sort: SortChoice = "relevance",
    detail: DetailChoice = "brief",
    source: SourceChoice = "auto",
    fallback: Fallback = True,
) -> SearchResult:
    """Search work packages (tasks, bugs, features) by subject, description and comments.

    Accepts natural-language phrasing; tolerates typos, reordered words, partial words and
    missing accents. Returns results ranked by relevance with the matching excerpt and the
    comments that matched. Filters take names (project 'platform', assignee 'me').
    """

    async def run() -> CallToolResult:
        request = _request(
            "work_package",
            query,
            matchMode,
            limit,
            source,
            fallback,
            (updatedAfter, updatedBefore),
            sort,
        )
        names = FilterNames(
            project=project, status=status, type=type, assignee=assignee, author=author
        )
        return await _search(ctx, request, names, detail)

    return await _guard(run)


async def _guard(run: Callable[[], Awaitable[CallToolResult]]) -> CallToolResult:
    """Argument errors found while building a request become error results."""
    try:
        return await run()
    except OpindexError as error:
        return failure_result(error)


async def openproject_search_meetings(
    ctx: Context,
    query: QueryText = "",
    matchMode: MatchMode = "fuzzy",
    limit: Limit = DEFAULT_LIMIT,
    project: ProjectRef = None,
    updatedAfter: UpdatedAfter = None,
    updatedBefore: UpdatedBefore = None,
    sort: SortChoice = "relevance",
    detail: DetailChoice = "brief",
    source: SourceChoice = "auto",
    fallback: Fallback = True,
) -> SearchResult:
    """Search meetings and agenda items: titles, locations, agenda notes, outcomes (decisions)
    and participants.

    Accepts natural-language phrasing ("what did we decide about hiring"); tolerates typos
    and reordered words. Returns results ranked by relevance with matching excerpts and the
    agenda items that matched.
    """

    async def run() -> CallToolResult:
        request = _request(
            "meeting",
            query,
            matchMode,
            limit,
            source,
            fallback,
            (updatedAfter, updatedBefore),
            sort,
        )
        return await _search(ctx, request, FilterNames(project=project), detail)

    return await _guard(run)


async def openproject_search_wiki_pages(
    ctx: Context,
    query: QueryText = "",
    matchMode: MatchMode = "fuzzy",
    limit: Limit = DEFAULT_LIMIT,
    project: ProjectRef = None,
    updatedAfter: UpdatedAfter = None,
    updatedBefore: UpdatedBefore = None,
    sort: SortChoice = "relevance",
    detail: DetailChoice = "brief",
    source: SourceChoice = "auto",
    fallback: Fallback = True,
) -> SearchResult:
    """Search wiki pages by title and full body text.

    Accepts natural-language phrasing; tolerates typos, reordered words and partial words.
    Returns pages ranked by relevance with the matching excerpt.
    """

    async def run() -> CallToolResult:
        request = _request(
            "wiki_page",
            query,
            matchMode,
            limit,
            source,
            fallback,
            (updatedAfter, updatedBefore),
            sort,
        )
        return await _search(ctx, request, FilterNames(project=project), detail)

    return await _guard(run)


async def openproject_list_work_package_activities(
    ctx: Context,
    workPackageId: WorkPackageId,
    query: OptionalQuery = None,
    matchMode: MatchMode = "fuzzy",
) -> Annotated[CallToolResult, ActivityListResponse]:
    """List the activities (comments and changes) of one work package, read live.

    With a query, only the comments that match are returned, ranked by relevance (typo
    tolerant; 'exact' for a literal substring). Use it to find what was said about
    something inside a work package you already found.
    """

    async def work(state: AppState, tenant: str) -> CallToolResult:
        listing = await handlers.list_activities(state, tenant, workPackageId, query, matchMode)
        return model_result(listing, render_activities(listing))

    return await _serve_tenant(ctx, work)


async def openproject_list_work_packages(
    ctx: Context,
    project: ProjectRef = None,
    subject: SubjectFilter = None,
    status: StatusChoice = "open",
    type: TypeRef = None,
    assignee: AssigneeRef = None,
    author: AuthorRef = None,
    updatedAfter: UpdatedAfter = None,
    updatedBefore: UpdatedBefore = None,
    limit: Limit = DEFAULT_LIMIT,
    detail: DetailChoice = "brief",
) -> ListResult:
    """List work packages with OpenProject's own filters, newest update first, read live.

    Unranked: use it to enumerate a project's open work packages, someone's assignments
    ('me') or what changed since a date; to find work packages about something, search.
    """

    async def work(state: AppState, tenant: str) -> CallToolResult:
        listing = await handlers.list_work_packages(
            state,
            tenant,
            handlers.WorkPackageFilters(
                subject=subject,
                limit=limit,
                updated_after=parse_moment(updatedAfter, "updatedAfter"),
                updated_before=parse_moment(updatedBefore, "updatedBefore"),
            ),
            FilterNames(
                project=project, status=status, type=type, assignee=assignee, author=author
            ),
        )
        return wire_result(listing_out(listing, detail), render_work_package_list(listing))

    return await _serve_tenant(ctx, work)


async def openproject_lookup(
    ctx: Context, kind: LookupKind, name: LookupText = None
) -> Annotated[CallToolResult, LookupOut]:
    """List the projects, users, statuses or work-package types this account can see, with
    their ids and names (identifiers of projects, logins where visible).

    Use it to find the names the other tools' filters accept, e.g. a project's identifier
    or a colleague's name.
    """

    async def work(state: AppState, tenant: str) -> CallToolResult:
        found = await state.service.lookup(tenant, kind, name)
        return wire_result(lookup_out(found), render_lookup(found))

    return await _serve_tenant(ctx, work)


async def _get(ctx: Context, kind: Kind, record_id: int) -> CallToolResult:
    async def work(state: AppState, tenant: str) -> CallToolResult:
        detail = await handlers.get_record(state, tenant, kind, record_id)
        return wire_result(record_out(detail), render_record(detail))

    return await _serve_tenant(ctx, work)


RecordResult = Annotated[CallToolResult, RecordOutWire]


async def openproject_get_work_package(ctx: Context, id: RecordId) -> RecordResult:
    """Read one work package in full (subject, description, status, people, comments).

    Use it after a search; from the index when fresh, else live.
    """
    return await _get(ctx, "work_package", id)


async def openproject_get_meeting(ctx: Context, id: RecordId) -> RecordResult:
    """Read one meeting in full (agenda items with notes and outcomes, participants).

    Use it after a search; from the index when fresh, else live.
    """
    return await _get(ctx, "meeting", id)


async def openproject_get_wiki_page(ctx: Context, id: RecordId) -> RecordResult:
    """Read one wiki page in full (title and body text).

    Use it after a search; from the index when fresh, else live.
    """
    return await _get(ctx, "wiki_page", id)


async def openproject_index_status(ctx: Context) -> Annotated[CallToolResult, IndexStatusReport]:
    """Report how fresh opindex's search index is and how many records it holds.

    Shows, for the tenant you are connected as: whether the index is fresh, stale, missing
    or syncing, when it was last synced, document counts per kind and the last error.
    Searches fall back to live OpenProject reads while the index is stale or missing.
    """

    async def work(state: AppState, tenant: str) -> CallToolResult:
        report = handlers.index_status(state, tenant)
        content = prune_json(report.model_dump(mode="json", by_alias=True))
        content.setdefault("tenants", [])
        return text_result(render_status(report), content)

    return await _serve_tenant(ctx, work)


TOOL_FUNCTIONS: tuple[Callable[..., Awaitable[CallToolResult]], ...] = (
    openproject_search_work_packages,
    openproject_search_meetings,
    openproject_search_wiki_pages,
    openproject_list_work_package_activities,
    openproject_list_work_packages,
    openproject_lookup,
    openproject_get_work_package,
    openproject_get_meeting,
    openproject_get_wiki_page,
    openproject_index_status,
)
TOOL_NAMES: tuple[str, ...] = tuple(function.__name__ for function in TOOL_FUNCTIONS)


def build_tools() -> list[Tool]:
    """One SDK tool per function, named after it, described by its docstring, read-only,
    with trimmed schemas (``trim_schema``)."""
    tools = []
    for function in TOOL_FUNCTIONS:
        tool = Tool.from_function(
            function,
            name=function.__name__,
            description=_description(function),
            annotations=READ_ONLY,
        )
        tool.parameters = trim_schema(tool.parameters)
        if tool.output_schema is not None:
            tool.output_schema = outline_schema(tool.output_schema)
        tools.append(tool)
    return tools


def _description(function: Callable[..., Any]) -> str:
    """The docstring as flowing paragraphs (the source's line breaks removed)."""
    doc = function.__doc__ or ""
    paragraphs = [" ".join(part.split()) for part in doc.strip().split("\n\n")]
    return "\n\n".join(paragraph for paragraph in paragraphs if paragraph)
