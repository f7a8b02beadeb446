"""Live meeting search (spec §3.1): list fields shallow, agenda and participants deep."""

from __future__ import annotations

from datetime import datetime

from opindex.envelope import SearchRequest
from opindex.errors import InvalidQueryError
from opindex.live.outcome import CandidateSet
from opindex.live.pipeline import close_walk, shallow_record
from opindex.openproject import (
    Filter,
    Meeting,
    OpenProjectClient,
    ServerCapabilities,
    SortBy,
    equals,
)
from opindex.record_builders import meeting_record
from opindex.records import Record

CANDIDATE_CAP = 250
"""Most meetings one search ranks (the legacy paging cap, spec §3.1)."""
NEWEST_FIRST: SortBy = (("id", "desc"),)

NO_AGENDA_NOTE = (
    "this OpenProject server exposes no meeting agenda items (they need 17.4 or later): "
    "only meeting titles, locations, project and author names were searched"
)


async def _list_meetings(
    client: OpenProjectClient, filters: list[Filter], sort_by: SortBy | None
) -> tuple[list[Meeting], bool]:
    """Up to CANDIDATE_CAP meetings, and whether more exist beyond the cap."""
    found: list[Meeting] = []
    more = False
    walk = client.meetings(filters, sort_by, page_size=CANDIDATE_CAP).pages()
    try:
        async for page in walk:
            room = CANDIDATE_CAP - len(found)
            found.extend(page.elements[:room])
            if len(page.elements) > room or (
                len(found) >= CANDIDATE_CAP and (page.total or 0) > len(found)
            ):
                more = True
            if len(found) >= CANDIDATE_CAP:
                break
    finally:
        await close_walk(walk)
    return found, more


async def fetch_meetings(
    client: OpenProjectClient, project_id: int | None
) -> tuple[list[Meeting], bool]:
    """The newest meetings (by id) of the project, or of every visible project.

    A server that refuses sorting by id answers 400; the legacy default order is then used.
    """
    filters = [equals("project", [project_id])] if project_id is not None else []
    try:
        return await _list_meetings(client, filters, NEWEST_FIRST)
    except InvalidQueryError:
        return await _list_meetings(client, filters, None)


def _start(record: Record) -> float | None:
    """Backfill order for meetings: the start time (meetings carry no useful updatedAt in
    older releases, spec §2.5)."""
    value = record.attributes.get("start_time")
    if not isinstance(value, str):
        return None
    try:
        return datetime.fromisoformat(value).timestamp()
    except ValueError:
        return None


def agenda_supported(meetings: list[Meeting], capabilities: ServerCapabilities | None) -> bool:
    """Whether the server has agenda items: the detected capability when known, else the
    ``agendaItems`` link a 17.4+ server puts on every meeting."""
    if capabilities is not None and capabilities.meeting_agenda_items is not None:
        return capabilities.meeting_agenda_items
    return any(meeting.has_agenda_items_link for meeting in meetings)


class MeetingSource:
    """Fetches meeting candidates for one request and enriches them on demand.

    Enrichment reads the meeting detail (participants) and then its agenda items with
    their outcomes (17.4+ / 17.6+), one request after another. On a server without
    agenda items nothing deep exists (participants came with 17.4 too), so no
    enrichment is attempted and the outcome carries a note instead of failures.
    """

    def __init__(
        self, client: OpenProjectClient, capabilities: ServerCapabilities | None = None
    ) -> None:
        self._client = client
        self._capabilities = capabilities

    async def candidates(self, request: SearchRequest) -> CandidateSet:
        """The meetings list (cap 250, project filter) as shallow records."""
        meetings, more = await fetch_meetings(self._client, request.project_id)
        records = [shallow_record(meeting_record(meeting, None)) for meeting in meetings]
        notes: list[str] = []
        if more:
            notes.append(f"only the {CANDIDATE_CAP} newest meetings were searched")
        if meetings and not agenda_supported(meetings, self._capabilities):
            notes.append(NO_AGENDA_NOTE)
            return CandidateSet(records=records, enrich=None, recency=_start, notes=notes)

        async def enrich(record: Record) -> Record:
            detail = await self._client.meeting(record.id)
            items = await self._client.meeting_agenda_items(record.id)
            return meeting_record(detail, items)

        return CandidateSet(records=records, enrich=enrich, recency=_start, notes=notes)
