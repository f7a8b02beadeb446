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
    RecordResponse,
    SearchRequest,
    SearchResponse,
    WorkPackageListResponse,
)
from opindex.errors import OpindexError
from opindex.mcp import handlers
from opindex.mcp.app_state import AppState
from opindex.mcp.arguments import (
    AssigneeId,
    Fallback,
    Limit,
    MatchMode,
    OptionalQuery,
    ProjectId,
    QueryText,
    RecordId,
    SourceChoice,
    StatusChoice,
    SubjectFilter,
    TypeId,
    WorkPackageId,
)
from opindex.mcp.callers import Caller, Refusal
from opindex.mcp.handlers import LIVE_ONLY
from opindex.mcp.rendering import (
    render_activities,
    render_record,
    render_status,
    render_work_package_list,
)
from opindex.mcp.results import error_result, failure_result, model_result, search_result
from opindex.mcp.status_report import IndexStatusReport
from opindex.search.document import Kind

SearchResult = Annotated[CallToolResult, SearchResponse]
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


async def _search(ctx: Context, request: SearchRequest) -> CallToolResult:
    async def work(state: AppState, caller: Caller) -> CallToolResult:
        return search_result(await handlers.search(state, caller, request))

    return await _serve(ctx, work)


async def openproject_search_work_packages(
    ctx: Context,
    query: QueryText = "",
    matchMode: MatchMode = "fuzzy",
    limit: Limit = DEFAULT_LIMIT,
    project: ProjectId = None,
    status: StatusChoice = "all",
    type: TypeId = None,
    assignee: AssigneeId = None,
    source: SourceChoice = "auto",
    fallback: Fallback = True,
) -> SearchResult:
    """Search work packages (tasks, bugs, features) by subject, description and comments.

    Accepts natural-language phrasing; tolerates typos, reordered words, partial words and
    missing accents. Returns results ranked by relevance with the matching excerpt and the
    comments that matched. Use matchMode 'exact' only for a literal string you know verbatim.
    The answer says whether it came from opindex's index or live from OpenProject.
    """
    request = SearchRequest(
        kind="work_package",
        query=query,
        match_mode=matchMode,
        limit=limit,
        source=source,
        fallback=fallback,
        project_id=project,
        status=status,
        type_id=type,
        assignee_id=assignee,
    )
    return await _search(ctx, request)


async def openproject_search_meetings(
    ctx: Context,
    query: QueryText = "",
    matchMode: MatchMode = "fuzzy",
    limit: Limit = DEFAULT_LIMIT,
    project: ProjectId = None,
    source: SourceChoice = "auto",
    fallback: Fallback = True,
) -> SearchResult:
    """Search meetings and agenda items: titles, locations, agenda notes, outcomes (decisions)
    and participants.

    Accepts natural-language phrasing ("what did we decide about hiring"); tolerates typos
    and reordered words. Returns results ranked by relevance with matching excerpts and the
    agenda items that matched. Use matchMode 'exact' only for literal strings.
    """
    request = SearchRequest(
        kind="meeting",
        query=query,
        match_mode=matchMode,
        limit=limit,
        source=source,
        fallback=fallback,
        project_id=project,
    )
    return await _search(ctx, request)


async def openproject_search_wiki_pages(
    ctx: Context,
    query: QueryText = "",
    matchMode: MatchMode = "fuzzy",
    limit: Limit = DEFAULT_LIMIT,
    project: ProjectId = None,
    source: SourceChoice = "auto",
    fallback: Fallback = True,
) -> SearchResult:
    """Search wiki pages by title and full body text.

    Accepts natural-language phrasing; tolerates typos, reordered words and partial words.
    Returns pages ranked by relevance with the matching excerpt. Use matchMode 'exact' only
    for literal strings you know verbatim.
    """
    request = SearchRequest(
        kind="wiki_page",
        query=query,
        match_mode=matchMode,
        limit=limit,
        source=source,
        fallback=fallback,
        project_id=project,
    )
    return await _search(ctx, request)


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
    project: ProjectId = None,
    subject: SubjectFilter = None,
    status: StatusChoice = "open",
    type: TypeId = None,
    assignee: AssigneeId = None,
    limit: Limit = DEFAULT_LIMIT,
) -> Annotated[CallToolResult, WorkPackageListResponse]:
    """List work packages with OpenProject's own filters, newest update first, read live.

    A plain filter listing (no ranking, no typo tolerance): use it to enumerate a project's
    open work packages, someone's assignments, or a status. To find work packages about
    something, use openproject_search_work_packages instead.
    """

    async def work(state: AppState, tenant: str) -> CallToolResult:
        listing = await handlers.list_work_packages(
            state,
            tenant,
            handlers.WorkPackageFilters(
                project_id=project,
                subject=subject,
                status=status,
                type_id=type,
                assignee_id=assignee,
                limit=limit,
            ),
        )
        return model_result(listing, render_work_package_list(listing))

    return await _serve_tenant(ctx, work)


async def _get(ctx: Context, kind: Kind, record_id: int) -> CallToolResult:
    async def work(state: AppState, tenant: str) -> CallToolResult:
        detail = await handlers.get_record(state, tenant, kind, record_id)
        return model_result(detail, render_record(detail))

    return await _serve_tenant(ctx, work)


RecordResult = Annotated[CallToolResult, RecordResponse]


async def openproject_get_work_package(ctx: Context, id: RecordId) -> RecordResult:
    """Read one work package in full (subject, description, status, people, comments).

    Use it after a search to read a result completely. Served from opindex's index when it
    is fresh, otherwise read live from OpenProject.
    """
    return await _get(ctx, "work_package", id)


async def openproject_get_meeting(ctx: Context, id: RecordId) -> RecordResult:
    """Read one meeting in full (agenda items with notes and outcomes, participants).

    Use it after a search to read a result completely. Served from opindex's index when it
    is fresh, otherwise read live from OpenProject.
    """
    return await _get(ctx, "meeting", id)


async def openproject_get_wiki_page(ctx: Context, id: RecordId) -> RecordResult:
    """Read one wiki page in full (title and body text).

    Use it after a search to read a result completely. Served from opindex's index when it
    is fresh, otherwise read live from OpenProject.
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
        return model_result(report, render_status(report))

    return await _serve_tenant(ctx, work)


TOOL_FUNCTIONS: tuple[Callable[..., Awaitable[CallToolResult]], ...] = (
    openproject_search_work_packages,
    openproject_search_meetings,
    openproject_search_wiki_pages,
    openproject_list_work_package_activities,
    openproject_list_work_packages,
    openproject_get_work_package,
    openproject_get_meeting,
    openproject_get_wiki_page,
    openproject_index_status,
)
TOOL_NAMES: tuple[str, ...] = tuple(function.__name__ for function in TOOL_FUNCTIONS)


def build_tools() -> list[Tool]:
    """One SDK tool per function, named after it, described by its docstring, read-only."""
    return [
        Tool.from_function(
            function,
            name=function.__name__,
            description=_description(function),
            annotations=READ_ONLY,
        )
        for function in TOOL_FUNCTIONS
    ]


def _description(function: Callable[..., Any]) -> str:
    """The docstring as flowing paragraphs (the source's line breaks removed)."""
    doc = function.__doc__ or ""
    paragraphs = [" ".join(part.split()) for part in doc.strip().split("\n\n")]
    return "\n\n".join(paragraph for paragraph in paragraphs if paragraph)
