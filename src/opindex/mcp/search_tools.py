"""The search tools: one per kind (work packages, meetings, wikis) and one across every kind."""

from __future__ import annotations

from typing import Annotated

from mcp.server.mcpserver import Context
from mcp.types import CallToolResult

from opindex.envelope import DEFAULT_LIMIT, MatchModeName, SearchRequest, SortOrder, Source
from opindex.mcp.arguments import (
    AssigneeRef,
    AuthorRef,
    CursorText,
    DetailChoice,
    Fallback,
    KindsChoice,
    Limit,
    MatchMode,
    ProjectRef,
    QueryText,
    SortChoice,
    SourceChoice,
    StatusChoice,
    TypeRef,
    UpdatedAfter,
    UpdatedBefore,
)
from opindex.mcp.callers import Caller
from opindex.mcp.tool_calls import AppState, global_result, guard, search_result, serve
from opindex.mcp.wire import Detail, GlobalSearchOut, SearchOut
from opindex.moments import parse_moment
from opindex.service import KINDS, FilterNames, Kind

SearchResult = Annotated[CallToolResult, SearchOut]
GlobalResult = Annotated[CallToolResult, GlobalSearchOut]


async def _search(
    ctx: Context, request: SearchRequest, names: FilterNames, detail: Detail
) -> CallToolResult:
    async def work(state: AppState, caller: Caller) -> CallToolResult:
        response = await state.search(caller, request, names)
        return search_result(response, detail)

    return await serve(ctx, work)


def _request(
    kind: Kind,
    query: str,
    match_mode: MatchModeName,
    limit: int,
    source: Source,
    fallback: bool,
    window: tuple[str | None, str | None],
    sort: SortOrder,
    cursor: str | None = None,
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
        cursor=cursor,
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
    cursor: CursorText = None,
) -> SearchResult:
    """Search work packages (tasks, bugs, features) by subject, description, comments and
    attached files.

    Tolerates typos, reordered words and missing accents. Ranked, with the matching excerpt
    and comments. Filters take names (project 'platform', assignee 'me').
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
            cursor,
        )
        names = FilterNames(
            project=project, status=status, type=type, assignee=assignee, author=author
        )
        return await _search(ctx, request, names, detail)

    return await guard(run)


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
    cursor: CursorText = None,
) -> SearchResult:
    """Search meetings: titles, locations, agenda notes, outcomes (decisions), participants.

    Accepts questions ("what did we decide about hiring"); tolerates typos. Ranked, with
    the agenda items that matched.
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
            cursor,
        )
        return await _search(ctx, request, FilterNames(project=project), detail)

    return await guard(run)


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
    cursor: CursorText = None,
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
            cursor,
        )
        return await _search(ctx, request, FilterNames(project=project), detail)

    return await guard(run)


async def openproject_search(
    ctx: Context,
    query: QueryText = "",
    kinds: KindsChoice = None,
    limit: Limit = DEFAULT_LIMIT,
    project: ProjectRef = None,
    source: SourceChoice = "auto",
    sort: SortChoice = "relevance",
    cursor: CursorText = None,
) -> GlobalResult:
    """Search everything at once: work packages, wiki pages, meetings, news, documents,
    projects, versions and attached files (PDF, Office, text).

    One ranking; each result names its kind, a hit inside a file names the file.
    """

    async def run() -> CallToolResult:
        request = SearchRequest(
            kind="work_package", query=query, limit=limit, source=source, sort=sort, cursor=cursor
        )  # ``kind`` is replaced by each of ``kinds`` in turn
        chosen: tuple[Kind, ...] = tuple(kinds) if kinds else KINDS

        async def work(state: AppState, caller: Caller) -> CallToolResult:
            response = await state.search_everything(
                caller, request, chosen, FilterNames(project=project)
            )
            return global_result(response, "brief")

        return await serve(ctx, work)

    return await guard(run)
