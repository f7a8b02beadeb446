"""Live search of news, documents, projects and versions: their lists carry every field.

One list per search (capped), ranked client-side like every other kind; nothing needs
enriching except the text of attached files, which the live path never downloads (the
note says so: the index searches it). Attached files themselves cannot be searched live.
"""

from __future__ import annotations

from opindex.envelope import SearchRequest
from opindex.errors import InvalidArgumentError
from opindex.live.outcome import CandidateSet
from opindex.live.pipeline import shallow_record
from opindex.openproject import OpenProjectClient
from opindex.record_builders import listed_records

CANDIDATE_CAP = 1000
"""Most records of one kind a live search ranks."""

ATTACHMENTS_NOT_LIVE = (
    "attached files are searched on the index only (their text is extracted when a sync "
    "reads them); run `opindex sync`, or search another kind live"
)


class PublicationSource:
    """Fetches the candidates of one listed kind for a request."""

    def __init__(self, client: OpenProjectClient) -> None:
        self._client = client

    async def candidates(self, request: SearchRequest) -> CandidateSet:
        """The kind's list (cap CANDIDATE_CAP, project filter applied here)."""
        if request.kind == "attachment":
            raise InvalidArgumentError(ATTACHMENTS_NOT_LIVE)
        listed = await listed_records(self._client, request.kind, CANDIDATE_CAP)
        records = [shallow_record(record) for record in listed]
        if request.project_id is not None:
            records = [r for r in records if r.project_id == request.project_id]
        notes: list[str] = []
        if len(listed) >= CANDIDATE_CAP:
            notes.append(f"only the first {CANDIDATE_CAP} were searched")
        if request.kind == "document":
            notes.append("answered live: the text of attached files is searched on the index only")
        return CandidateSet(records=records, enrich=None, notes=notes)
