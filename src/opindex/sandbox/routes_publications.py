"""Routes for news, documents, versions and forum posts."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from opindex.sandbox.app_state import sandbox_of
from opindex.sandbox.auth import authenticate
from opindex.sandbox.corpus import Document, News, Version
from opindex.sandbox.hal_core import API, hal_response, paginated_collection, unpaginated_collection
from opindex.sandbox.hal_publications import (
    document_resource,
    news_resource,
    post_resource,
    version_resource,
)
from opindex.sandbox.query_params import (
    id_values,
    invalid_query,
    parse_filters,
    parse_paging,
    parse_sort,
    sort_records,
)
from opindex.sandbox.routes_core import find_project

PROJECT_FILTERS = {"project": {"=": "is", "!": "is not"}}
PROJECT_FILTER_ALIASES = {"project": "project", "project_id": "project"}
NEWS_SORT_KEYS: dict[str, Callable[[News], Any]] = {
    "id": lambda n: n.id,
    "created_at": lambda n: n.created_at,
}
DOCUMENT_SORT_KEYS: dict[str, Callable[[Document], Any]] = {
    "id": lambda d: d.id,
    "created_at": lambda d: d.created_at,
}
VERSION_FILTERS = {"sharing": {"=": "is", "!": "is not"}}
VERSION_FILTER_ALIASES = {"sharing": "sharing"}


ProjectRecord = TypeVar("ProjectRecord", News, Document)


def _in_projects(request: Request, records: list[ProjectRecord]) -> list[ProjectRecord]:
    """Apply a ``project`` / ``project_id`` filter, if the request has one."""
    raw = request.query_params.get("filters")
    if raw is None:
        return records
    for flt in parse_filters(raw, PROJECT_FILTERS, PROJECT_FILTER_ALIASES):
        ids = id_values(flt)
        wanted = flt.operator == "="
        records = [r for r in records if (r.project in ids) == wanted]
    return records


def _paged(
    request: Request,
    path: str,
    records: list[Any],
    sort_keys: dict[str, Callable[[Any], Any]],
    render: Callable[[Any], Any],
) -> Response:
    state = sandbox_of(request)
    params = request.query_params
    offset, page_size = parse_paging(params, state.options.page_size_max)
    sort = parse_sort(params.get("sortBy"), sort_keys, [("id", False)])
    ordered = sort_records(records, sort, sort_keys)
    page = ordered[(offset - 1) * page_size : offset * page_size]
    query = {key: params[key] for key in ("filters", "sortBy") if key in params}
    body = paginated_collection(
        path,
        query,
        [render(record) for record in page],
        total=len(ordered),
        offset=offset,
        page_size=page_size,
    )
    return hal_response(body)


async def news_list(request: Request) -> Response:
    """News of the projects whose content the caller sees; filter ``project_id``."""
    state, user = authenticate(request)
    visible = state.store.content_projects(user)
    found = _in_projects(request, [n for n in state.store.news.values() if n.project in visible])
    return _paged(
        request,
        f"{API}/news",
        found,
        NEWS_SORT_KEYS,
        lambda news: news_resource(state.store, news),
    )


async def news_by_id(request: Request) -> Response:
    state, user = authenticate(request)
    news = state.store.visible_news(user, request.path_params["news_id"])
    return hal_response(news_resource(state.store, news, viewer=user))


async def documents(request: Request) -> Response:
    """Documents of the projects whose content the caller sees."""
    state, user = authenticate(request)
    visible = state.store.content_projects(user)
    found = _in_projects(
        request, [d for d in state.store.documents.values() if d.project in visible]
    )
    return _paged(
        request,
        f"{API}/documents",
        found,
        DOCUMENT_SORT_KEYS,
        lambda document: document_resource(state.store, document),
    )


async def document_by_id(request: Request) -> Response:
    state, user = authenticate(request)
    document = state.store.visible_document(user, request.path_params["document_id"])
    return hal_response(document_resource(state.store, document, embed=True))


def _sharing_filtered(request: Request, found: list[Version]) -> list[Version]:
    raw = request.query_params.get("filters")
    if raw is None:
        return found
    for flt in parse_filters(raw, VERSION_FILTERS, VERSION_FILTER_ALIASES):
        if not flt.values:
            raise invalid_query("Filters sharing: Values can't be blank.")
        wanted = flt.operator == "="
        found = [v for v in found if (v.sharing in flt.values) == wanted]
    return found


def _versions_body(request: Request, path: str, found: list[Version]) -> Response:
    state = sandbox_of(request)
    ordered = sorted(_sharing_filtered(request, found), key=lambda v: v.id)
    elements = [version_resource(state.store, version) for version in ordered]
    return hal_response(unpaginated_collection(path, elements))


async def versions(request: Request) -> Response:
    """Every version the caller sees, unpaginated; filter ``sharing``."""
    state, user = authenticate(request)
    found = [v for v in state.store.versions.values() if state.store.sees_version(user, v)]
    return _versions_body(request, f"{API}/versions", found)


async def project_versions(request: Request) -> Response:
    """The versions available in one project: its own and those shared system-wide."""
    state, user = authenticate(request)
    ref = request.path_params["project_ref"]
    project = state.store.visible_project(user, find_project(state.store, ref).id)
    if project.id not in state.store.content_projects(user):
        found: list[Version] = []
    else:
        found = [
            v
            for v in state.store.versions.values()
            if v.project == project.id or v.sharing == "system"
        ]
    return _versions_body(request, f"{API}/projects/{ref}/versions", found)


async def version_by_id(request: Request) -> Response:
    state, user = authenticate(request)
    version = state.store.visible_version(user, request.path_params["version_id"])
    return hal_response(version_resource(state.store, version))


async def post_by_id(request: Request) -> Response:
    state, user = authenticate(request)
    post = state.store.visible_post(user, request.path_params["post_id"])
    return hal_response(post_resource(state.store, post))


ROUTES = [
    Route(f"{API}/news", news_list),
    Route(f"{API}/news/{{news_id:int}}", news_by_id),
    Route(f"{API}/documents", documents),
    Route(f"{API}/documents/{{document_id:int}}", document_by_id),
    Route(f"{API}/versions", versions),
    Route(f"{API}/versions/{{version_id:int}}", version_by_id),
    Route(f"{API}/projects/{{project_ref}}/versions", project_versions),
    Route(f"{API}/posts/{{post_id:int}}", post_by_id),
]
