"""Routes for meetings, their agenda items (17.4+) and outcomes (17.6+)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from opindex.sandbox.auth import authenticate
from opindex.sandbox.corpus import AgendaItem, Meeting
from opindex.sandbox.hal_content import agenda_item_resource, meeting_resource, outcome_resource
from opindex.sandbox.hal_core import API, hal_response, paginated_collection, unpaginated_collection
from opindex.sandbox.options import SandboxOptions
from opindex.sandbox.query_params import (
    Filter,
    id_values,
    invalid_query,
    parse_filters,
    parse_paging,
    parse_sort,
    sort_records,
)
from opindex.sandbox.store import not_found

MEETING_FILTERS = {"project": {"=": "is", "!": "is not"}, "time": {"=": "is"}}
MEETING_FILTER_ALIASES = {"project": "project", "project_id": "project", "time": "time"}
MEETING_SORT_KEYS: dict[str, Callable[[Meeting], Any]] = {
    "id": lambda m: m.id,
    "start_time": lambda m: m.start_time,
    "created_at": lambda m: m.created_at,
    "updated_at": lambda m: m.updated_at,
    "title": lambda m: m.title.lower(),
}


def _end(meeting: Meeting) -> datetime:
    return meeting.start_time + timedelta(hours=meeting.duration)


def _meeting_predicate(flt: Filter) -> Callable[[Meeting], bool]:
    if flt.name == "project":
        ids = id_values(flt)
        wanted = flt.operator == "="
        return lambda m: (m.project in ids) == wanted
    if len(flt.values) != 1 or flt.values[0] not in ("past", "future"):
        raise invalid_query("Filters time: Values must be exactly one of past, future.")
    now = datetime.now(UTC)
    # Upcoming meetings include those still running; past ones have ended.
    if flt.values[0] == "future":
        return lambda m: _end(m) > now
    return lambda m: _end(m) <= now


async def meetings(request: Request) -> Response:
    state, user = authenticate(request)
    params = request.query_params
    offset, page_size = parse_paging(params, state.options.page_size_max)
    sort = parse_sort(params.get("sortBy"), MEETING_SORT_KEYS, [("id", False)])
    visible = state.store.content_projects(user)
    found = [m for m in state.store.meetings.values() if m.project in visible]
    filters_raw = params.get("filters")
    if filters_raw is not None:
        for flt in parse_filters(filters_raw, MEETING_FILTERS, MEETING_FILTER_ALIASES):
            predicate = _meeting_predicate(flt)
            found = [m for m in found if predicate(m)]
    ordered = sort_records(found, sort, MEETING_SORT_KEYS)
    page = ordered[(offset - 1) * page_size : offset * page_size]
    level = state.options.meetings_api
    query = {key: params[key] for key in ("filters", "sortBy") if key in params}
    body = paginated_collection(
        f"{API}/meetings",
        query,
        [meeting_resource(state.store, m, level) for m in page],
        total=len(ordered),
        offset=offset,
        page_size=page_size,
    )
    return hal_response(body)


async def meeting_by_id(request: Request) -> Response:
    state, user = authenticate(request)
    meeting = state.store.visible_meeting(user, request.path_params["meeting_id"])
    return hal_response(meeting_resource(state.store, meeting, state.options.meetings_api))


def _ordered_items(meeting: Meeting) -> list[AgendaItem]:
    return sorted(meeting.agenda_items, key=lambda item: (item.position, item.id))


async def agenda_items(request: Request) -> Response:
    """All agenda items of a meeting in one unpaginated collection."""
    state, user = authenticate(request)
    meeting = state.store.visible_meeting(user, request.path_params["meeting_id"])
    level = state.options.meetings_api
    elements = [
        agenda_item_resource(state.store, meeting, item, level) for item in _ordered_items(meeting)
    ]
    path = f"{API}/meetings/{meeting.id}/agenda_items"
    return hal_response(unpaginated_collection(path, elements))


def _agenda_item(request: Request) -> tuple[Meeting, AgendaItem]:
    state, user = authenticate(request)
    meeting = state.store.visible_meeting(user, request.path_params["meeting_id"])
    for item in meeting.agenda_items:
        if item.id == request.path_params["item_id"]:
            return meeting, item
    raise not_found()


async def agenda_item_by_id(request: Request) -> Response:
    state, _ = authenticate(request)
    meeting, item = _agenda_item(request)
    level = state.options.meetings_api
    return hal_response(agenda_item_resource(state.store, meeting, item, level))


async def outcomes(request: Request) -> Response:
    """The outcomes of one agenda item, unpaginated (17.6+)."""
    state, _ = authenticate(request)
    meeting, item = _agenda_item(request)
    elements = [outcome_resource(state.store, meeting, item, o) for o in item.outcomes]
    path = f"{API}/meetings/{meeting.id}/agenda_items/{item.id}/outcomes"
    return hal_response(unpaginated_collection(path, elements))


def routes(options: SandboxOptions) -> list[Route]:
    """The meeting routes that exist at the configured meetings API level."""
    level = options.meetings_api
    found = [
        Route(f"{API}/meetings", meetings),
        Route(f"{API}/meetings/{{meeting_id:int}}", meeting_by_id),
    ]
    item_path = f"{API}/meetings/{{meeting_id:int}}/agenda_items"
    if level.has_agenda_items:
        found.append(Route(item_path, agenda_items))
        found.append(Route(f"{item_path}/{{item_id:int}}", agenda_item_by_id))
    if level.has_outcomes:
        found.append(Route(f"{item_path}/{{item_id:int}}/outcomes", outcomes))
    return found
