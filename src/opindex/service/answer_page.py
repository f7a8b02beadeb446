"""One page of an answer: the cursor decoded, the ranking widened to reach the page, the page cut.

A search with a cursor ranks (again) the records up to the end of the requested page and
serves the page only when the ranking still begins with the records shown before (see
``opindex.service.cursor``); the answer carries the cursor of the page after it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypeVar

from opindex.envelope import SearchRequest
from opindex.service.cursor import (
    Cursor,
    check_cursor,
    decode_cursor,
    next_cursor,
    request_digest,
    seen_digest,
)

T = TypeVar("T")
Key = tuple[str, int]
"""(kind, id) of a record in a ranking."""


@dataclass(frozen=True, slots=True)
class Paging:
    """Where the requested page starts, the cursor that said so, and the request digest."""

    offset: int
    cursor: Cursor | None
    digest: str
    limit: int

    @property
    def wanted(self) -> int:
        """Records to rank to cut the page and know whether another follows."""
        return self.offset + self.limit + 1


def paging(request: SearchRequest, scope: str = "") -> Paging:
    """The paging of *request* (InvalidArgumentError for a cursor it did not give out)."""
    cursor = decode_cursor(request.cursor) if request.cursor is not None else None
    digest = request_digest(request, scope)
    return Paging(cursor.offset if cursor else 0, cursor, digest, request.limit)


def widened(request: SearchRequest, page: Paging) -> SearchRequest:
    """*request* asking for every record up to the end of the page (and one more), without
    its cursor: what the search paths run."""
    return request.model_copy(update={"limit": page.wanted, "cursor": None})


@dataclass(frozen=True, slots=True)
class Cut:
    """A page cut from a ranking, and the cursor of the page after it."""

    start: int
    stop: int
    next_cursor: str | None


def cut_page(keys: Sequence[Key], total: int, page: Paging, commit: str | None) -> Cut:
    """The page of the ranking *keys* (every record ranked, best first) that *page* asks
    for; *total*: records that matched in all (at least ``len(keys)``).

    Raises StaleCursorError when the ranking no longer begins with the records the
    earlier pages showed.
    """
    start = min(page.offset, len(keys))
    if page.cursor is not None:
        check_cursor(page.cursor, page.digest, seen_digest(keys[: page.offset]), commit)
    stop = min(start + page.limit, len(keys))
    more = max(total, len(keys)) > stop
    return Cut(start, stop, next_cursor(start, keys[:stop], more, page.digest, commit))
