"""Work-package queries: the filters OpenProject accepts, sorting, and a small result cache."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from opindex.sandbox.corpus import User, WorkPackage
from opindex.sandbox.query_params import (
    Filter,
    datetime_bounds,
    id_values,
    invalid_query,
    parse_filters,
    sort_records,
)
from opindex.sandbox.store import SandboxStore

IDS = {"=": "is", "!": "is not"}
WP_FILTERS: dict[str, dict[str, str]] = {
    "updated_at": {"<>d": "between"},
    "created_at": {"<>d": "between"},
    "project": IDS,
    "status": {"o": "open", "c": "closed", **IDS},
    "type": IDS,
    "assignee": {**IDS, "*": "any", "!*": "none"},
    "author": IDS,
    "subject": {"~": "contains", "!~": "does not contain"},
    "id": IDS,
}
WP_FILTER_ALIASES = {
    "updated_at": "updated_at",
    "created_at": "created_at",
    "project": "project",
    "project_id": "project",
    "status": "status",
    "status_id": "status",
    "type": "type",
    "type_id": "type",
    "assignee": "assignee",
    "assigned_to": "assignee",
    "assigned_to_id": "assignee",
    "author": "author",
    "author_id": "author",
    "subject": "subject",
    "id": "id",
}
WP_SORT_KEYS: dict[str, Callable[[WorkPackage], Any]] = {
    "id": lambda wp: wp.id,
    "updated_at": lambda wp: wp.updated_at,
    "created_at": lambda wp: wp.created_at,
    "subject": lambda wp: wp.subject.lower(),
    "status": lambda wp: wp.status,
    "type": lambda wp: wp.type,
}
WP_SELECTABLE = (
    "_type",
    "id",
    "lockVersion",
    "subject",
    "description",
    "createdAt",
    "updatedAt",
    "self",
    "project",
    "status",
    "type",
    "author",
    "assignee",
)
# The filter OpenProject applies when a request carries no ``filters`` parameter at all.
DEFAULT_FILTERS_JSON = '[{"status":{"operator":"o","values":null}}]'

Predicate = Callable[[WorkPackage], bool]


def _predicate(store: SandboxStore, user: User, flt: Filter) -> Predicate:
    name, op = flt.name, flt.operator
    positive = op in ("=", "~", "*", "o")
    if name in ("updated_at", "created_at"):
        lower, upper = datetime_bounds(flt)
        attribute = name

        def between(wp: WorkPackage) -> bool:
            value = getattr(wp, attribute)
            return (lower is None or value >= lower) and (upper is None or value <= upper)

        return between
    if name == "status" and op in ("o", "c"):
        closed = {s.id for s in store.statuses.values() if s.is_closed}
        return lambda wp: (wp.status in closed) == (op == "c")
    if name == "subject":
        if len(flt.values) != 1 or not flt.values[0]:
            raise invalid_query("Filters subject: Values must hold exactly one text.")
        needle = flt.values[0].casefold()
        return lambda wp: (needle in wp.subject.casefold()) == positive
    if name == "assignee" and op in ("*", "!*"):
        return lambda wp: (wp.assignee is not None) == positive
    ids = id_values(flt, me=user.id)
    attribute = {"assignee": "assignee", "author": "author"}.get(name, name)
    return lambda wp: (getattr(wp, attribute) in ids) == positive


class WorkPackageQuery:
    """Runs filter + sort over the visible work packages, caching recent results.

    The cache key includes the store's ``generation``, so a mutation invalidates it; this
    keeps paging through a 100k-record corpus at the cost of one page per request.
    """

    def __init__(self, store: SandboxStore, capacity: int = 32) -> None:
        self.store = store
        self.capacity = capacity
        self._cache: OrderedDict[tuple[Any, ...], list[WorkPackage]] = OrderedDict()

    def run(
        self,
        user: User,
        filters_json: str,
        sort: list[tuple[str, bool]],
        project_id: int | None = None,
    ) -> list[WorkPackage]:
        """Every visible work package matching *filters_json*, in *sort* order."""
        key = (self.store.generation, user.id, filters_json, tuple(sort), project_id)
        cached = self._cache.get(key)
        if cached is not None:
            self._cache.move_to_end(key)
            return cached
        filters = parse_filters(filters_json, WP_FILTERS, WP_FILTER_ALIASES)
        predicates = [_predicate(self.store, user, flt) for flt in filters]
        visible = self.store.content_projects(user)
        if project_id is not None:
            visible = visible & {project_id}
        found = [
            wp
            for wp in self.store.work_packages.values()
            if wp.project in visible and all(p(wp) for p in predicates)
        ]
        ordered = sort_records(found, sort, WP_SORT_KEYS)
        self._cache[key] = ordered
        if len(self._cache) > self.capacity:
            self._cache.popitem(last=False)
        return ordered
