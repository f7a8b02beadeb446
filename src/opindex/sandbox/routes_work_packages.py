"""Routes for work packages (global and per project) and their activities."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from opindex.sandbox.auth import authenticate
from opindex.sandbox.hal_content import (
    activity_resource,
    journal_versions,
    work_package_fields,
    work_package_resource,
)
from opindex.sandbox.hal_core import (
    API,
    hal_response,
    link,
    paginated_collection,
    unpaginated_collection,
)
from opindex.sandbox.hal_publications import attachment_resource
from opindex.sandbox.query_params import (
    apply_select,
    parse_paging,
    parse_select,
    parse_sort,
    selected_element_names,
)
from opindex.sandbox.routes_core import find_project
from opindex.sandbox.wp_query import DEFAULT_FILTERS_JSON, WP_SELECTABLE, WP_SORT_KEYS


async def _list(request: Request, path: str, project_ref: str | None) -> Response:
    state, user = authenticate(request)
    project_id = None
    if project_ref is not None:
        project_id = state.store.visible_project(user, find_project(state.store, project_ref).id).id
    params = request.query_params
    offset, page_size = parse_paging(params, state.options.page_size_max)
    select = parse_select(params.get("select"), WP_SELECTABLE)
    sort = parse_sort(params.get("sortBy"), WP_SORT_KEYS, [("id", False)])
    # No ``filters`` parameter at all means OpenProject's default: open work packages only.
    filters_json = params.get("filters", DEFAULT_FILTERS_JSON)
    found = state.wp_query.run(user, filters_json, sort, project_id)
    page = found[(offset - 1) * page_size : offset * page_size]
    query = {key: params[key] for key in ("filters", "sortBy", "select") if key in params}
    names = selected_element_names(select)
    if names is None:
        elements = [work_package_resource(state.store, wp) for wp in page]
    else:
        elements = [work_package_fields(state.store, wp, names) for wp in page]
    body = paginated_collection(
        path,
        query,
        elements,
        total=len(found),
        offset=offset,
        page_size=page_size,
    )
    return hal_response(apply_select(body, select))


async def work_packages(request: Request) -> Response:
    return await _list(request, f"{API}/work_packages", None)


async def project_work_packages(request: Request) -> Response:
    ref = request.path_params["project_ref"]
    return await _list(request, f"{API}/projects/{ref}/work_packages", ref)


async def work_package_by_id(request: Request) -> Response:
    state, user = authenticate(request)
    work_package = state.store.visible_work_package(user, request.path_params["wp_id"])
    return hal_response(work_package_resource(state.store, work_package))


async def work_package_activities(request: Request) -> Response:
    """Every journal entry of the work package, unpaginated; internal ones only for admins."""
    state, user = authenticate(request)
    work_package = state.store.visible_work_package(user, request.path_params["wp_id"])
    versions = journal_versions(work_package)
    shown = sorted(
        (a for a in work_package.activities if user.admin or not a.internal),
        key=lambda a: (a.created_at, a.id),
    )
    elements = [
        activity_resource(state.store, work_package, activity, versions[activity.id])
        for activity in shown
    ]
    path = f"{API}/work_packages/{work_package.id}/activities"
    return hal_response(unpaginated_collection(path, elements))


_REVERSE = {"blocks": "blocked", "precedes": "follows", "duplicates": "duplicated"}


async def work_package_relations(request: Request) -> Response:
    """The relations the work package takes part in (either end), to visible ones only."""
    state, user = authenticate(request)
    work_package = state.store.visible_work_package(user, request.path_params["wp_id"])
    found = [(work_package.id, relation) for relation in work_package.relations]
    for other in state.store.work_packages.values():
        found.extend((other.id, r) for r in other.relations if r.to == work_package.id)
    visible = state.store.content_projects(user)
    elements = []
    for source, relation in sorted(found, key=lambda pair: pair[1].id):
        start = state.store.work_packages.get(source)
        target = state.store.work_packages.get(relation.to)
        if start is None or target is None or not {start.project, target.project} <= visible:
            continue
        elements.append(
            {
                "_type": "Relation",
                "id": relation.id,
                "name": relation.type,
                "type": relation.type,
                "reverseType": _REVERSE.get(relation.type, relation.type),
                "_links": {
                    "self": link(f"{API}/relations/{relation.id}"),
                    "from": link(f"{API}/work_packages/{start.id}", start.subject),
                    "to": link(f"{API}/work_packages/{target.id}", target.subject),
                },
            }
        )
    path = f"{API}/work_packages/{work_package.id}/relations"
    return hal_response(unpaginated_collection(path, elements))


async def work_package_attachments(request: Request) -> Response:
    """The files attached to the work package: those listed inside the work package record
    (names and sizes only), then those of the corpus's ``attachments`` (full resources)."""
    state, user = authenticate(request)
    work_package = state.store.visible_work_package(user, request.path_params["wp_id"])
    base = f"{API}/work_packages/{work_package.id}"
    elements = [
        {
            "_type": "Attachment",
            "id": attachment.id,
            "fileName": attachment.file_name,
            "fileSize": attachment.file_size,
            "contentType": "application/octet-stream",
            "_links": {
                "self": link(f"{API}/attachments/{attachment.id}", attachment.file_name),
                "container": link(base, work_package.subject),
            },
        }
        for attachment in work_package.attachments
    ]
    elements += [
        attachment_resource(state.store, attachment)
        for attachment in state.store.attachments_of("work_packages", work_package.id)
    ]
    return hal_response(unpaginated_collection(f"{base}/attachments", elements))


ROUTES = [
    Route(f"{API}/work_packages", work_packages),
    Route(f"{API}/work_packages/{{wp_id:int}}", work_package_by_id),
    Route(f"{API}/work_packages/{{wp_id:int}}/activities", work_package_activities),
    Route(f"{API}/work_packages/{{wp_id:int}}/relations", work_package_relations),
    Route(f"{API}/work_packages/{{wp_id:int}}/attachments", work_package_attachments),
    Route(f"{API}/projects/{{project_ref}}/work_packages", project_work_packages),
]
