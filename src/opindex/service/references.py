"""Ids and links in a query: ``#123``, ``123``, ``WP 123`` and OpenProject URLs name a record.

A model quoting a ticket number or pasting a link expects that record, not records whose
text holds similar digits. A query that is nothing but such a reference is resolved to
the record (from a fresh index, else live, as the caller's account sees it) and that
record is listed first; the ordinary search results follow.
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass
from urllib.parse import unquote, urlsplit

from opindex.envelope import MAX_ID
from opindex.errors import IndexUnavailableError, OpenProjectError
from opindex.records import Record
from opindex.search import Kind
from opindex.service import record_reads
from opindex.service.tenant import Tenant
from opindex.sync import Freshness

_NUMBER = re.compile(
    r"^\s*(?:(?:wp|work\s*package|ticket|task|bug)\s*[#:]?\s*|#)?(\d{1,19})\s*$", re.I
)
_PATHS: tuple[tuple[re.Pattern[str], Kind], ...] = (
    (re.compile(r"/(?:work_packages|wp)/(\d+)(?:/|$)"), "work_package"),
    (re.compile(r"/projects/[^/]+/(?:work_packages)/(\d+)(?:/|$)"), "work_package"),
    (re.compile(r"/meetings/(\d+)(?:/|$)"), "meeting"),
    (re.compile(r"/news/(\d+)(?:/|$)"), "news"),
    (re.compile(r"/documents/(\d+)(?:/|$)"), "document"),
    (re.compile(r"/versions/(\d+)(?:/|$)"), "version"),
    (re.compile(r"/attachments/(\d+)(?:/|$)"), "attachment"),
)
_WIKI = re.compile(r"/projects/([^/]+)/wiki/([^/?#]+)")
_LIVE_KINDS: frozenset[Kind] = frozenset({"work_package", "meeting", "wiki_page"})
"""Kinds a record can be read live by id (the others only from the index)."""


@dataclass(frozen=True, slots=True)
class Reference:
    """A record named by a query: its kind (None: the kind searched), and its id or, for a
    wiki page, its project identifier and slug."""

    kind: Kind | None
    id: int | None = None
    project: str | None = None
    slug: str | None = None

    def words(self) -> str:
        """The words to search for the record by text (a wiki slug's words)."""
        return (self.slug or "").replace("-", " ").replace("_", " ")


def parse_reference(query: str) -> Reference | None:
    """The record *query* names when it is nothing but an id or a link, else None."""
    text = query.strip()
    if not text or len(text) > 500:
        return None
    number = _NUMBER.match(text)
    if number is not None:
        kind: Kind | None = "work_package" if text[0].isalpha() else None
        return _numbered(kind, number.group(1))
    if " " in text or "/" not in text:
        return None
    path = unquote(urlsplit(text).path if "://" in text else text)
    wiki = _WIKI.search(path)
    if wiki is not None:
        return Reference("wiki_page", project=wiki.group(1), slug=wiki.group(2))
    for pattern, kind_of in _PATHS:
        found = pattern.search(path)
        if found is not None:
            return _numbered(kind_of, found.group(1))
    return None


def _numbered(kind: Kind | None, digits: str) -> Reference | None:
    value = int(digits)
    return Reference(kind, value) if 1 <= value <= MAX_ID else None


async def referenced_record(
    runtime: Tenant, kind: Kind, record_id: int, freshness: Freshness
) -> Record | None:
    """The record *kind* #*record_id* as the tenant's account sees it, or None.

    From the index when it is fresh (it holds only what the account sees), else live
    where the kind can be read live; None when it does not exist, is not visible, or
    cannot be read now (the ordinary search still answers).
    """
    if runtime.may_use_index and freshness.has_index:
        try:
            index = runtime.index()
            stored = await asyncio.to_thread(index.get, kind, record_id)
        except IndexUnavailableError:
            stored = None
        if stored is not None or (freshness.state == "fresh" and kind not in _LIVE_KINDS):
            return stored
        if freshness.state == "fresh":
            return None
    if kind not in _LIVE_KINDS:
        return None
    try:
        return await record_reads.fetch_record(runtime.client(), kind, record_id)
    except OpenProjectError:
        return None
