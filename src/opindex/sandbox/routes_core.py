"""Routes for the root, users, projects, statuses and types."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from opindex.sandbox.auth import authenticate
from opindex.sandbox.corpus import Project
from opindex.sandbox.hal_core import (
    API,
    hal_response,
    link,
    paginated_collection,
    project_resource,
    status_resource,
    type_resource,
    unpaginated_collection,
    user_resource,
)
from opindex.sandbox.query_params import (
    apply_select,
    id_values,
    invalid_query,
    parse_filters,
    parse_paging,
    parse_select,
    parse_sort,
    sort_records,
)
from opindex.sandbox.store import SandboxStore, not_found

PROJECT_FILTERS = {"id": {"=": "is", "!": "is not"}, "active": {"=": "is"}}
PROJECT_FILTER_ALIASES = {"id": "id", "active": "active"}
PROJECT_SORT_KEYS: dict[str, Callable[[Project], Any]] = {
    "id": lambda p: p.id,
    "name": lambda p: p.name.lower(),
    "created_at": lambda p: p.created_at,
    "updated_at": lambda p: p.updated_at,
}
PROJECT_SELECTABLE = (
    "_type",
    "id",
    "identifier",
    "name",
    "active",
    "public",
    "description",
    "statusExplanation",
    "createdAt",
    "updatedAt",
    "self",
)


async def root(request: Request) -> Response:
    state, user = authenticate(request)
    body = {
        "_type": "Root",
        "instanceName": "opindex sandbox",
        "_links": {
            "self": link(API),
            "configuration": link(f"{API}/configuration"),
            "user": link(f"{API}/users/{user.id}", user.name),
            "userPreferences": link(f"{API}/my_preferences"),
            "priorities": link(f"{API}/priorities"),
            "statuses": link(f"{API}/statuses"),
            "types": link(f"{API}/types"),
            "workPackages": link(f"{API}/work_packages"),
            "projects": link(f"{API}/projects"),
        },
    }
    if user.admin:
        body["coreVersion"] = state.options.meetings_api.core_version
    return hal_response(body)


async def current_user(request: Request) -> Response:
    _, user = authenticate(request)
    return hal_response(user_resource(user, viewer=user))


async def user_by_id(request: Request) -> Response:
    state, viewer = authenticate(request)
    user = state.store.users.get(request.path_params["user_id"])
    if user is None:
        raise not_found()
    return hal_response(user_resource(user, viewer=viewer))


async def principals(request: Request) -> Response:
    """Users the caller can see: members of the projects it sees, and itself (all for an
    admin), by id; like OpenProject, logins only for admins and the user themself."""
    state, viewer = authenticate(request)
    visible = state.store.visible_projects(viewer)
    member_ids = {viewer.id}
    for project in state.store.projects.values():
        if project.id in visible:
            member_ids.update(project.members)
    found = [
        user
        for user in sorted(state.store.users.values(), key=_by_id)
        if viewer.admin or user.id in member_ids
    ]
    offset, page_size = parse_paging(request.query_params, state.options.page_size_max)
    page = found[(offset - 1) * page_size : offset * page_size]
    body = paginated_collection(
        f"{API}/principals",
        {},
        [user_resource(user, viewer=viewer) for user in page],
        total=len(found),
        offset=offset,
        page_size=page_size,
    )
    return hal_response(body)


async def projects(request: Request) -> Response:
    state, user = authenticate(request)
    params = request.query_params
    offset, page_size = parse_paging(params, state.options.page_size_max)
    select = parse_select(params.get("select"), PROJECT_SELECTABLE)
    sort = parse_sort(params.get("sortBy"), PROJECT_SORT_KEYS, [("id", False)])
    visible = state.store.visible_projects(user)
    found = [p for p in state.store.projects.values() if p.id in visible]
    filters_raw = params.get("filters")
    if filters_raw is not None:
        for flt in parse_filters(filters_raw, PROJECT_FILTERS, PROJECT_FILTER_ALIASES):
            if flt.name == "id":
                ids = id_values(flt)
                found = [p for p in found if (p.id in ids) == (flt.operator == "=")]
            else:
                wanted = _boolean(flt.values)
                found = [p for p in found if p.active == wanted]
    ordered = sort_records(found, sort, PROJECT_SORT_KEYS)
    page = ordered[(offset - 1) * page_size : offset * page_size]
    query = {key: params[key] for key in ("filters", "sortBy", "select") if key in params}
    body = paginated_collection(
        f"{API}/projects",
        query,
        [project_resource(p) for p in page],
        total=len(ordered),
        offset=offset,
        page_size=page_size,
    )
    body["_links"]["representations"] = []
    return hal_response(apply_select(body, select))


def _boolean(values: tuple[str, ...]) -> bool:
    if len(values) != 1 or values[0] not in ("t", "f", "true", "false"):
        raise invalid_query("Filters active: Values must be one of t, f.")
    return values[0] in ("t", "true")


async def project_by_ref(request: Request) -> Response:
    state, user = authenticate(request)
    project = find_project(state.store, request.path_params["project_ref"])
    return hal_response(project_resource(state.store.visible_project(user, project.id)))


def find_project(store: SandboxStore, ref: str) -> Project:
    """A project by numeric id or by identifier (the API accepts both); 404 if unknown."""
    if ref.isdigit() and int(ref) in store.projects:
        return store.projects[int(ref)]
    for project in store.projects.values():
        if project.identifier == ref:
            return project
    raise not_found()


async def statuses(request: Request) -> Response:
    state, _ = authenticate(request)
    elements = [status_resource(s) for s in sorted(state.store.statuses.values(), key=_by_id)]
    return hal_response(unpaginated_collection(f"{API}/statuses", elements))


async def status_by_id(request: Request) -> Response:
    state, _ = authenticate(request)
    status = state.store.statuses.get(request.path_params["status_id"])
    if status is None:
        raise not_found()
    return hal_response(status_resource(status))


async def types(request: Request) -> Response:
    state, _ = authenticate(request)
    elements = [type_resource(t) for t in sorted(state.store.types.values(), key=_by_id)]
    return hal_response(unpaginated_collection(f"{API}/types", elements))


async def type_by_id(request: Request) -> Response:
    state, _ = authenticate(request)
    wp_type = state.store.types.get(request.path_params["type_id"])
    if wp_type is None:
        raise not_found()
    return hal_response(type_resource(wp_type))


def _by_id(record: object) -> int:
    return int(getattr(record, "id", 0))


ROUTES = [
    Route(API, root),
    Route(f"{API}/users/me", current_user),
    Route(f"{API}/users/{{user_id:int}}", user_by_id),
    Route(f"{API}/principals", principals),
    Route(f"{API}/projects", projects),
    Route(f"{API}/projects/{{project_ref}}", project_by_ref),
    Route(f"{API}/statuses", statuses),
    Route(f"{API}/statuses/{{status_id:int}}", status_by_id),
    Route(f"{API}/types", types),
    Route(f"{API}/types/{{type_id:int}}", type_by_id),
]
