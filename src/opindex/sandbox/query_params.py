"""Parsing the query parameters of API v3 collections: filters, sortBy, select, paging."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime, time
from typing import Any, TypeVar

from opindex.errors import InvalidQueryError
from opindex.sandbox.hal_core import Json

DEFAULT_PAGE_SIZE = 20
T = TypeVar("T")


def invalid_query(message: str, name: str = "InvalidQuery") -> InvalidQueryError:
    """A 400 with the given error name (``InvalidQuery`` unless told otherwise)."""
    return InvalidQueryError(message, status=400, error_identifier=name)


def snake_case(name: str) -> str:
    """``updatedAt`` -> ``updated_at``: API property names map to internal names."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


@dataclass(frozen=True, slots=True)
class Filter:
    """One filter of a ``filters`` parameter, with its name already canonical."""

    name: str
    operator: str
    values: tuple[str, ...]


def parse_filters(
    raw: str, allowed: Mapping[str, Mapping[str, str]], aliases: Mapping[str, str]
) -> list[Filter]:
    """Decode a ``filters`` JSON array; names and operators must be known.

    *allowed* maps a canonical filter name to its operators (operator -> description),
    *aliases* maps accepted spellings (after snake-casing) to the canonical name.
    """
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise invalid_query(f"Filters are not valid JSON: {exc.msg}.") from exc
    if not isinstance(data, list):
        raise invalid_query("Filters must be a JSON array of single-key objects.")
    filters: list[Filter] = []
    for entry in data:
        if not isinstance(entry, dict) or len(entry) != 1:
            raise invalid_query("Filters must be a JSON array of single-key objects.")
        (given_name, spec), *_ = entry.items()
        name = aliases.get(snake_case(str(given_name)))
        if name is None:
            raise invalid_query(f"Filters {given_name} filter does not exist.")
        if not isinstance(spec, dict) or not isinstance(spec.get("operator"), str):
            raise invalid_query(f"Filters {given_name}: Operator can't be blank.")
        operator = spec["operator"]
        if operator not in allowed[name]:
            raise invalid_query(
                f"Filters {given_name}: Operator {operator!r} is not set to one of the allowed "
                f"values ({', '.join(allowed[name])})."
            )
        filters.append(Filter(name, operator, _filter_values(given_name, spec.get("values"))))
    return filters


def _filter_values(name: str, values: Any) -> tuple[str, ...]:
    if values is None:
        return ()
    if not isinstance(values, list) or not all(
        isinstance(v, str | int) and not isinstance(v, bool) for v in values
    ):
        raise invalid_query(f"Filters {name}: Values must be a list of strings.")
    return tuple(str(v) for v in values)


def id_values(flt: Filter, *, me: int | None = None) -> set[int]:
    """The values of an id filter as integers (``me`` resolves to the current user)."""
    ids: set[int] = set()
    for value in flt.values:
        if value == "me" and me is not None:
            ids.add(me)
            continue
        try:
            ids.add(int(value))
        except ValueError:
            raise invalid_query(f"Filters {flt.name}: {value!r} is not a valid id.") from None
    if not ids:
        raise invalid_query(f"Filters {flt.name}: Values can't be blank.")
    return ids


def datetime_bounds(flt: Filter) -> tuple[datetime | None, datetime | None]:
    """The inclusive bounds of a ``<>d`` filter; an empty string is an open end."""
    if len(flt.values) != 2:
        raise invalid_query(f"Filters {flt.name}: Values must hold exactly two datetimes.")
    lower, upper = (_parse_bound(flt, v, end_of_day=i == 1) for i, v in enumerate(flt.values))
    if lower is None and upper is None:
        raise invalid_query(f"Filters {flt.name}: Values can't be blank.")
    return lower, upper


def _parse_bound(flt: Filter, value: str, *, end_of_day: bool) -> datetime | None:
    if value == "":
        return None
    try:
        if len(value) == 10:
            day = date.fromisoformat(value)
            return datetime.combine(day, time.max if end_of_day else time.min, tzinfo=UTC)
        parsed = datetime.fromisoformat(value)
    except ValueError:
        raise invalid_query(f"Filters {flt.name}: {value!r} is not a valid date-time.") from None
    return parsed.replace(tzinfo=UTC) if parsed.tzinfo is None else parsed.astimezone(UTC)


def parse_sort(
    raw: str | None, keys: Iterable[str], default: list[tuple[str, bool]]
) -> list[tuple[str, bool]]:
    """Decode ``sortBy`` into (canonical key, descending) pairs; keys must be in *keys*."""
    if raw is None:
        return default
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise invalid_query(f"Sort by is not valid JSON: {exc.msg}.") from exc
    if not isinstance(data, list):
        raise invalid_query("Sort by must be a JSON array of [property, direction] pairs.")
    known = set(keys)
    pairs: list[tuple[str, bool]] = []
    for entry in data:
        if (
            not isinstance(entry, list)
            or len(entry) != 2
            or not all(isinstance(part, str) for part in entry)
        ):
            raise invalid_query("Sort by must be a JSON array of [property, direction] pairs.")
        key, direction = snake_case(entry[0]), entry[1].lower()
        if key not in known:
            raise invalid_query(f"Sort by {entry[0]} is not supported.")
        if direction not in ("asc", "desc"):
            raise invalid_query(f"Sort by {entry[0]}: direction must be asc or desc.")
        pairs.append((key, direction == "desc"))
    return pairs


def sort_records(
    records: list[T], pairs: list[tuple[str, bool]], key_funcs: Mapping[str, Callable[[T], Any]]
) -> list[T]:
    """Sort by the pairs, ties broken by ascending id (``key_funcs['id']``)."""
    ordered = sorted(records, key=key_funcs["id"])
    for key, descending in reversed(pairs):
        ordered.sort(key=key_funcs[key], reverse=descending)
    return ordered


def _positive_int(raw: str | None, name: str) -> int | None:
    if raw is None or raw == "":
        return None
    try:
        return int(raw)
    except ValueError:
        raise invalid_query(f"{name} must be an integer, not {raw!r}.") from None


def parse_paging(params: Mapping[str, str], page_size_max: int) -> tuple[int, int]:
    """(offset, pageSize): offset is a 1-based page, pageSize clamped, -1 means the maximum."""
    offset = _positive_int(params.get("offset"), "Offset")
    if offset is None:
        offset = 1
    elif offset < 1:
        raise invalid_query(f"Offset must be a page number of 1 or more, not {offset}.")
    page_size = _positive_int(params.get("pageSize"), "Page size")
    if page_size is None:
        page_size = min(DEFAULT_PAGE_SIZE, page_size_max)
    elif page_size == -1:
        page_size = page_size_max
    elif page_size < 0:
        raise invalid_query(
            f"Page size must be 0 or more (or -1 for the maximum), not {page_size}."
        )
    return offset, min(page_size, page_size_max)


COLLECTION_PROPERTIES = ("total", "count", "pageSize", "offset", "_type")
COLLECTION_LINKS = ("self", "jumpTo", "changeSize", "nextByOffset", "previousByOffset")


def parse_select(raw: str | None, element_properties: Iterable[str]) -> list[str] | None:
    """The ``select`` paths, or ``None`` for everything; unknown paths give 400 InvalidSignal."""
    if raw is None:
        return None
    allowed = {"*", "elements/*", *COLLECTION_PROPERTIES, *COLLECTION_LINKS}
    allowed.update(f"elements/{name}" for name in element_properties)
    paths = [part.strip() for part in raw.split(",") if part.strip()]
    for path in paths:
        if path not in allowed:
            raise invalid_query(f"The select path {path!r} is not supported.", "InvalidSignal")
    return paths


def selected_element_names(paths: list[str] | None) -> set[str] | None:
    """The element properties a ``select`` asks for; ``None`` when whole elements are needed."""
    if paths is None or "*" in paths or "elements/*" in paths:
        return None
    return {p.removeprefix("elements/") for p in paths if p.startswith("elements/")}


def apply_select(collection: Json, paths: list[str] | None) -> Json:
    """Keep only the selected parts of a collection (and of each of its elements)."""
    if paths is None or "*" in paths:
        return collection
    result: Json = {}
    links = collection.get("_links", {})
    for path in paths:
        if path in COLLECTION_PROPERTIES:
            result[path] = collection[path]
        elif path in COLLECTION_LINKS and path in links:
            result.setdefault("_links", {})[path] = links[path]
    element_paths = [p.removeprefix("elements/") for p in paths if p.startswith("elements/")]
    if element_paths:
        elements = collection["_embedded"]["elements"]
        result["_embedded"] = {"elements": [_select_element(e, element_paths) for e in elements]}
    return result


def _select_element(element: Json, names: list[str]) -> Json:
    if "*" in names:
        return element
    selected: Json = {}
    links = element.get("_links", {})
    for name in names:
        if name in element and name != "_links":
            selected[name] = element[name]
        elif name in links:
            selected.setdefault("_links", {})[name] = links[name]
    return selected
