"""Routes for wiki pages: the single-page endpoint, and the list endpoints with --wiki-list."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from opindex.sandbox.auth import authenticate
from opindex.sandbox.corpus import WikiPage
from opindex.sandbox.hal_content import wiki_page_resource
from opindex.sandbox.hal_core import API, hal_response, paginated_collection
from opindex.sandbox.options import SandboxOptions
from opindex.sandbox.query_params import (
    id_values,
    parse_filters,
    parse_paging,
    parse_sort,
    sort_records,
)
from opindex.sandbox.routes_core import find_project

WIKI_FILTERS = {"project": {"=": "is", "!": "is not"}, "id": {"=": "is", "!": "is not"}}
WIKI_FILTER_ALIASES = {"project": "project", "project_id": "project", "id": "id"}
WIKI_SORT_KEYS: dict[str, Callable[[WikiPage], Any]] = {
    "id": lambda page: page.id,
    "title": lambda page: page.title.lower(),
    "updated_at": lambda page: page.updated_at,
    "created_at": lambda page: page.created_at,
}


async def wiki_page_by_id(request: Request) -> Response:
    state, user = authenticate(request)
    page = state.store.visible_wiki_page(user, request.path_params["page_id"])
    return hal_response(wiki_page_resource(state.store, page, with_text=state.options.wiki_text))


async def _list(request: Request, path: str, project_ref: str | None) -> Response:
    state, user = authenticate(request)
    visible = state.store.content_projects(user)
    if project_ref is not None:
        project = state.store.visible_project(user, find_project(state.store, project_ref).id)
        visible = visible & {project.id}
    params = request.query_params
    offset, page_size = parse_paging(params, state.options.page_size_max)
    sort = parse_sort(params.get("sortBy"), WIKI_SORT_KEYS, [("id", False)])
    found = [page for page in state.store.wiki_pages.values() if page.project in visible]
    filters_raw = params.get("filters")
    if filters_raw is not None:
        for flt in parse_filters(filters_raw, WIKI_FILTERS, WIKI_FILTER_ALIASES):
            ids = id_values(flt)
            wanted = flt.operator == "="
            found = [p for p in found if (getattr(p, flt.name) in ids) == wanted]
    ordered = sort_records(found, sort, WIKI_SORT_KEYS)
    page_records = ordered[(offset - 1) * page_size : offset * page_size]
    query = {key: params[key] for key in ("filters", "sortBy") if key in params}
    elements = [
        wiki_page_resource(state.store, record, with_text=state.options.wiki_text)
        for record in page_records
    ]
    body = paginated_collection(
        path, query, elements, total=len(ordered), offset=offset, page_size=page_size
    )
    return hal_response(body)


async def wiki_pages(request: Request) -> Response:
    return await _list(request, f"{API}/wiki_pages", None)


async def project_wiki_pages(request: Request) -> Response:
    ref = request.path_params["project_ref"]
    return await _list(request, f"{API}/projects/{ref}/wiki_pages", ref)


def routes(options: SandboxOptions) -> list[Route]:
    """The wiki routes that exist under *options* (lists only with ``--wiki-list``)."""
    found = [Route(f"{API}/wiki_pages/{{page_id:int}}", wiki_page_by_id)]
    if options.wiki_list:
        found.append(Route(f"{API}/wiki_pages", wiki_pages))
        found.append(Route(f"{API}/projects/{{project_ref}}/wiki_pages", project_wiki_pages))
    return found
