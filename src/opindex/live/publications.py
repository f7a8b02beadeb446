"""Live search of news, documents, projects and versions: their lists carry every field.

One list per search (capped), ranked client-side like every other kind; nothing needs
enriching except the text of attached files, which the live path never downloads (the
note says so: the index searches it). Attached files themselves cannot be searched live.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import TypeVar

from opindex.envelope import SearchRequest
from opindex.errors import InvalidArgumentError
from opindex.live.outcome import CandidateSet
from opindex.live.pipeline import close_walk, shallow_record
from opindex.openproject import OpenProjectClient, PagedQuery
from opindex.record_builders import document_record, news_record, project_record, version_record
from opindex.records import Record

CANDIDATE_CAP = 1000
"""Most records of one kind a live search ranks."""

ATTACHMENTS_NOT_LIVE = (
    "attached files are searched on the index only (their text is extracted when a sync "
    "reads them); run `opindex sync`, or search another kind live"
)

T = TypeVar("T")
Lister = Callable[[OpenProjectClient], Awaitable[Sequence[Record]]]


async def _first(query: PagedQuery[T]) -> list[T]:
    """At most CANDIDATE_CAP elements of a collection (one page at the cap's size)."""
    found: list[T] = []
    walk = query.items()
    try:
        async for element in walk:
            found.append(element)
            if len(found) >= CANDIDATE_CAP:
                break
    finally:
        await close_walk(walk)
    return found


async def _news(client: OpenProjectClient) -> list[Record]:
    return [news_record(item) for item in await _first(client.news(CANDIDATE_CAP))]


async def _documents(client: OpenProjectClient) -> list[Record]:
    return [document_record(item) for item in await _first(client.documents(CANDIDATE_CAP))]


async def _projects(client: OpenProjectClient) -> list[Record]:
    found = await _first(client.projects(page_size=CANDIDATE_CAP))
    return [project_record(item) for item in found]


async def _versions(client: OpenProjectClient) -> list[Record]:
    return [version_record(item) for item in await _first(client.versions(CANDIDATE_CAP))]


LISTERS: dict[str, Lister] = {
    "news": _news,
    "document": _documents,
    "project": _projects,
    "version": _versions,
}
"""The kinds this module searches live, and how each is listed."""


class PublicationSource:
    """Fetches the candidates of one listed kind for a request."""

    def __init__(self, client: OpenProjectClient) -> None:
        self._client = client

    async def candidates(self, request: SearchRequest) -> CandidateSet:
        """The kind's list (cap CANDIDATE_CAP, project filter applied here)."""
        lister = LISTERS.get(request.kind)
        if lister is None:
            raise InvalidArgumentError(ATTACHMENTS_NOT_LIVE)
        records = [shallow_record(record) for record in await lister(self._client)]
        if request.project_id is not None:
            records = [r for r in records if r.project_id == request.project_id]
        notes: list[str] = []
        if len(records) >= CANDIDATE_CAP:
            notes.append(f"only the first {CANDIDATE_CAP} were searched")
        if request.kind == "document":
            notes.append("answered live: the text of attached files is searched on the index only")
        return CandidateSet(records=records, enrich=None, notes=notes)
