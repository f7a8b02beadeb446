"""Pagination cursors: opaque tokens bound to the request and the index commit they came from.

A cursor says where the next page starts (an offset into the ranking) and what it belongs
to: a digest of the request (query, filters, kind, order), the index commit the pages were
read from (none when answered live), and a digest of the records the earlier pages showed.
The next page is computed again and served only when the ranking still begins with exactly
those records (same commit: always), so a page never repeats a record already shown nor
skips one that moved; otherwise the cursor is refused with a clear error (search again
without it). A cursor for another request is refused too.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass

from opindex.envelope import SearchRequest
from opindex.errors import InvalidArgumentError

VERSION = 1
MAX_OFFSET = 10_000
"""Deepest page start a cursor may point at (the ranking is recomputed per page)."""
MAX_CURSOR_LENGTH = 512


class StaleCursorError(InvalidArgumentError):
    """The cursor belongs to an older index commit or to another request."""


@dataclass(frozen=True, slots=True)
class Cursor:
    """Where the next page starts and what it belongs to."""

    offset: int
    request: str
    """Digest of the request the cursor continues."""
    commit: str | None
    """The index commit the previous page was read from (None: answered live)."""
    seen: str
    """Digest of the records the earlier pages showed, in order (``seen_digest``)."""


def request_digest(request: SearchRequest, scope: str = "") -> str:
    """A short digest of everything that decides the ranking of *request* (not its
    limit, not its cursor); *scope* adds what the request does not hold (kinds)."""
    fields = request.model_dump(mode="json", exclude={"limit", "cursor"})
    text = json.dumps([fields, scope], sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:10]


def seen_digest(keys: Sequence[tuple[str, int]]) -> str:
    """Digest of the (kind, id) of the records shown so far, in order."""
    text = ",".join(f"{kind}:{record_id}" for kind, record_id in keys)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:10]


def commit_digest(commit: str | None) -> str | None:
    """A short stand-in for an index commit label (None: answered live)."""
    if commit is None:
        return None
    return hashlib.sha256(commit.encode("utf-8")).hexdigest()[:6]


def encode_cursor(cursor: Cursor) -> str:
    """The opaque text form of *cursor* (short: it travels in every answer with a page
    after it)."""
    commit = cursor.commit or "-"
    return f"{VERSION}.{cursor.offset}.{cursor.request}.{commit}.{cursor.seen}"


_CURSOR = re.compile(r"^(\d+)\.(\d{1,6})\.([0-9a-f]{1,64})\.(-|[0-9a-f]{1,64})\.([0-9a-f]{1,64})$")


def decode_cursor(text: str) -> Cursor:
    """The cursor *text* stands for (InvalidArgumentError when it is not one)."""
    invalid = InvalidArgumentError(
        "cursor is not one this server gave out; pass the nextCursor of the previous "
        "answer unchanged, or search again without a cursor"
    )
    if not isinstance(text, str) or len(text) > MAX_CURSOR_LENGTH:
        raise invalid
    found = _CURSOR.match(text)
    if found is None or int(found.group(1)) != VERSION:
        raise invalid
    offset = int(found.group(2))
    if not 0 < offset <= MAX_OFFSET:
        raise invalid
    commit = found.group(4)
    return Cursor(offset, found.group(3), None if commit == "-" else commit, found.group(5))


def check_cursor(cursor: Cursor, digest: str, seen: str, commit: str | None) -> None:
    """Refuse *cursor* unless it continues the request *digest* over a ranking whose first
    ``cursor.offset`` records are the ones shown before (*seen*, computed now)."""
    if cursor.request != digest:
        raise StaleCursorError(
            "this cursor belongs to another search (query, filters or order differ); "
            "repeat the same search with it, or search again without a cursor"
        )
    if cursor.seen != seen:
        changed = (
            "the index changed since this cursor was given (a sync committed new data)"
            if cursor.commit != commit_digest(commit)
            else "the results changed since this cursor was given"
        )
        raise StaleCursorError(
            f"{changed}, so the next page could repeat or skip records; search again "
            "without a cursor to page through the current results"
        )


def next_cursor(
    offset: int, keys: Sequence[tuple[str, int]], more: bool, digest: str, commit: str | None
) -> str | None:
    """The cursor of the page after the records *keys* (every one shown so far, from the
    first page on) when *more* follow, or None (also past MAX_OFFSET)."""
    following = len(keys)
    if not more or following <= offset or following > MAX_OFFSET:
        return None
    return encode_cursor(Cursor(following, digest, commit_digest(commit), seen_digest(keys)))
