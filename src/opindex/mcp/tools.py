"""The MCP tools: typed signatures (the published schemas) as thin adapters over the service.

Each tool resolves the caller, builds the request, lets the service do the work, and
returns structured content plus a text rendering. Library errors become error results
whose text tells the model what to change.
Every tool is read-only.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Annotated, Any

from mcp.server.mcpserver import Context
from mcp.server.mcpserver.tools import Tool
from mcp.types import CallToolResult, ToolAnnotations

from opindex.envelope import (
    DEFAULT_LIMIT,
    ActivityListResponse,
)
from opindex.mcp.arguments import (
    AssigneeRef,
    AuthorRef,
    CursorText,
    DetailChoice,
    Limit,
    LookupKind,
    LookupText,
    MatchMode,
    OptionalQuery,
    ProjectRef,
    RecordDetail,
    RecordId,
    StatusChoice,
    SubjectFilter,
    TypeRef,
    UpdatedAfter,
    UpdatedBefore,
    WorkPackageId,
    outline_schema,
    trim_schema,
)
from opindex.mcp.rendering import (
    render_activities,
    render_lookup,
    render_record,
    render_status,
    render_work_package_list,
)
from opindex.mcp.search_tools import (
    openproject_search,
    openproject_search_meetings,
    openproject_search_wiki_pages,
    openproject_search_work_packages,
)
from opindex.mcp.status_report import IndexStatusReport
from opindex.mcp.tool_calls import (
    AppState,
    model_result,
    serve_tenant,
    text_result,
    wire_result,
)
from opindex.mcp.wire import (
    LookupOut,
    RecordOutWire,
    SearchOut,
    listing_out,
    lookup_out,
    prune_json,
    record_out,
)
from opindex.moments import parse_moment
from opindex.service import FilterNames, Kind

ListResult = Annotated[CallToolResult, SearchOut]
READ_ONLY = ToolAnnotations(read_only_hint=True)
"""Every tool only reads (the spec's destructive and idempotent hints apply only to tools
that write, so they are left out: ``tools/list`` stays within its budget)."""


async def openproject_list_work_package_activities(
    ctx: Context,
    workPackageId: WorkPackageId,
    query: OptionalQuery = None,
    matchMode: MatchMode = "fuzzy",
) -> Annotated[CallToolResult, ActivityListResponse]:
    """List one work package's activities (comments and changes), read live.

    With a query, only the matching comments, ranked (typo tolerant): what was said about
    something inside a work package you already found.
    """

    async def work(state: AppState, tenant: str) -> CallToolResult:
        listing = await state.service.list_activities(tenant, workPackageId, query, matchMode)
        return model_result(listing, render_activities(listing))

    return await serve_tenant(ctx, work)


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
    cursor: CursorText = None,
) -> ListResult:
    """List work packages with OpenProject's own filters, newest update first, read live.

    Unranked: use it to enumerate a project's open work packages, someone's assignments
    ('me') or what changed since a date; to find work packages about something, search.
    """

    async def work(state: AppState, tenant: str) -> CallToolResult:
        listing = await state.service.list_work_packages(
            tenant,
            subject=subject,
            limit=limit,
            updated_after=parse_moment(updatedAfter, "updatedAfter"),
            updated_before=parse_moment(updatedBefore, "updatedBefore"),
            names=FilterNames(
                project=project, status=status, type=type, assignee=assignee, author=author
            ),
            cursor=cursor,
        )
        return wire_result(listing_out(listing, detail), render_work_package_list(listing))

    return await serve_tenant(ctx, work)


async def openproject_lookup(
    ctx: Context, kind: LookupKind, name: LookupText = None
) -> Annotated[CallToolResult, LookupOut]:
    """List the projects, users, statuses or work-package types this account can see, with
    ids and names: the names the other tools' filters accept.
    """

    async def work(state: AppState, tenant: str) -> CallToolResult:
        found = await state.service.lookup(tenant, kind, name)
        return wire_result(lookup_out(found), render_lookup(found))

    return await serve_tenant(ctx, work)


async def _get(ctx: Context, kind: Kind, record_id: int, links: bool = False) -> CallToolResult:
    async def work(state: AppState, tenant: str) -> CallToolResult:
        found = await state.service.get_record(tenant, kind, record_id, links=links)
        return wire_result(record_out(found), render_record(found))

    return await serve_tenant(ctx, work)


RecordResult = Annotated[CallToolResult, RecordOutWire]


async def openproject_get_work_package(
    ctx: Context, id: RecordId, detail: RecordDetail = "brief"
) -> RecordResult:
    """Read one work package in full (description, status, priority, dates, people,
    comments with authors and dates).

    Use it after a search; from the index when fresh, else live.
    """
    return await _get(ctx, "work_package", id, links=detail == "full")


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
    """Report how fresh the search index is: fresh, stale, missing or syncing, the last
    sync, records per kind, the last error. Searches go live while it is stale or missing.
    """

    async def work(state: AppState, tenant: str) -> CallToolResult:
        report = state.index_status(tenant)
        content = prune_json(report.model_dump(mode="json", by_alias=True))
        content.setdefault("tenants", [])
        return text_result(render_status(report), content)

    return await serve_tenant(ctx, work)


TOOL_FUNCTIONS: tuple[Callable[..., Awaitable[CallToolResult]], ...] = (
    openproject_search,
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
