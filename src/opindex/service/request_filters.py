"""Request filters (project, status, type, people, update time) checked once and mapped."""

from __future__ import annotations

from opindex.envelope import SearchRequest
from opindex.errors import InvalidArgumentError
from opindex.index import IndexFilters, StatusSelection

WORK_PACKAGE_ONLY = ("status", "type_id", "assignee_id", "author_id")


def check_filters(request: SearchRequest) -> None:
    """Reject filters that cannot apply to the request's kind.

    Status, type and assignee exist only on work packages; on other kinds they would
    silently match nothing, so they are refused with a message saying why.
    """
    after, before = request.updated_after, request.updated_before
    if after is not None and before is not None and after >= before:
        raise InvalidArgumentError(
            f"updatedAfter ({after.isoformat()}) must be earlier than updatedBefore "
            f"({before.isoformat()}): nothing can match both"
        )
    if request.kind == "work_package":
        if isinstance(request.status, list) and not request.status:
            raise InvalidArgumentError(
                "status: give 'open', 'closed', 'all' or a non-empty list of status ids"
            )
        return
    used = [
        name
        for name in WORK_PACKAGE_ONLY
        if (request.status != "all" if name == "status" else getattr(request, name) is not None)
    ]
    if used:
        raise InvalidArgumentError(
            f"{', '.join(used)}: only work packages can be filtered this way, "
            f"not {request.kind.replace('_', ' ')}s"
        )


def index_filters(request: SearchRequest) -> IndexFilters:
    """The IndexFilters equivalent to the request's filters (call check_filters first)."""
    status: StatusSelection | None
    if request.status == "all":
        status = None
    elif request.status == "open" or request.status == "closed":
        status = request.status
    else:
        status = tuple(request.status)
    return IndexFilters(
        project_ids=(request.project_id,) if request.project_id is not None else None,
        status=status,
        type_ids=(request.type_id,) if request.type_id is not None else None,
        assignee_ids=(request.assignee_id,) if request.assignee_id is not None else None,
        author_ids=(request.author_id,) if request.author_id is not None else None,
        updated_after=request.updated_after,
        updated_before=request.updated_before,
    )
