"""Filter arguments given by name (project, status, type, assignee, author) made ids."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from pydantic import ValidationError

from opindex.envelope import MAX_ID, SearchRequest, StatusFilter
from opindex.errors import InvalidArgumentError
from opindex.service.directory import Directory, DirectoryKind

Ref = int | str
STATUS_WORDS = ("open", "closed", "all")


@dataclass(frozen=True, slots=True)
class FilterNames:
    """Filters as a caller gave them: ids, names, identifiers, logins or ``me``.

    ``status``: ``open``/``closed``/``all``, a status name, or a list of ids and names.
    None leaves the request's own value.
    """

    project: Ref | None = None
    status: Ref | list[Ref] | None = None
    type: Ref | None = None
    assignee: Ref | None = None
    author: Ref | None = None
    option_prefix: str = ""
    """Put before argument names in errors: ``--`` for command-line options."""

    def needs_directory(self) -> bool:
        """True when some value is a name (ids and status keywords need no look-up)."""
        values: list[object] = [self.project, self.type, self.assignee, self.author]
        if isinstance(self.status, list):
            values.extend(self.status)
        elif isinstance(self.status, str) and self.status.casefold() not in STATUS_WORDS:
            values.append(self.status)
        # On the command line a number arrives as text and is an id; a tool caller sends
        # ids as JSON integers, so its text is always a name.
        digits_are_ids = bool(self.option_prefix)
        return any(
            isinstance(v, str) and not (digits_are_ids and v.strip().isdigit()) for v in values
        )


@dataclass(frozen=True, slots=True)
class ResolvedFilters:
    """The ids the names stand for (None: no filter)."""

    project_id: int | None = None
    status: StatusFilter | list[int] | None = None
    type_id: int | None = None
    assignee_id: int | None = None
    author_id: int | None = None


def _as_id(ref: Ref, label: str) -> int:
    value = ref if isinstance(ref, int) else int(ref.strip())
    if not 1 <= value <= MAX_ID:
        raise InvalidArgumentError(f"{label}: ids are numbers from 1 to {MAX_ID}, not {value}")
    return value


def resolve_filters(names: FilterNames, directory: Directory | None) -> ResolvedFilters:
    """Ids for *names*; *directory* may be None only when ``names.needs_directory()`` is
    False. Unknown and ambiguous names raise ``InvalidArgumentError``."""

    def one(kind: DirectoryKind, argument: str, ref: Ref) -> int:
        label = names.option_prefix + argument
        if directory is None:
            return _as_id(ref, label)
        return directory.resolve(
            kind, label, ref, hint=not names.option_prefix, digits_are_ids=bool(names.option_prefix)
        )

    def optional(kind: DirectoryKind, argument: str, ref: Ref | None) -> int | None:
        return None if ref is None else one(kind, argument, ref)

    status: StatusFilter | list[int] | None = None
    if isinstance(names.status, str) and names.status.strip().casefold() in (
        "open",
        "closed",
        "all",
    ):
        keyword = names.status.strip().casefold()
        status = "open" if keyword == "open" else "closed" if keyword == "closed" else "all"
    elif names.status is not None:
        items = names.status if isinstance(names.status, list) else [names.status]
        status = [one("statuses", "status", item) for item in items]
    return ResolvedFilters(
        project_id=optional("projects", "project", names.project),
        status=status,
        type_id=optional("types", "type", names.type),
        assignee_id=optional("users", "assignee", names.assignee),
        author_id=optional("users", "author", names.author),
    )


def with_filters(request: SearchRequest, resolved: ResolvedFilters) -> SearchRequest:
    """*request* with the resolved ids (values left None keep the request's own)."""
    update: dict[str, object] = {
        name: value
        for name, value in (
            ("project_id", resolved.project_id),
            ("status", resolved.status),
            ("type_id", resolved.type_id),
            ("assignee_id", resolved.assignee_id),
            ("author_id", resolved.author_id),
        )
        if value is not None
    }
    try:
        return SearchRequest.model_validate({**request.model_dump(), **update})
    except ValidationError as exc:  # e.g. an id beyond 2^63 - 1 given as text
        raise InvalidArgumentError(f"invalid filter: {exc.errors()[0]['msg']}") from exc


async def named_request(
    directory: Callable[[], Awaitable[Directory]],
    request: SearchRequest,
    names: FilterNames | None,
) -> SearchRequest:
    """*request* with the filters *names* gives; *directory* is read only for names."""
    if names is None:
        return request
    found = await directory() if names.needs_directory() else None
    return with_filters(request, resolve_filters(names, found))
