"""What a live search hands back: hits, candidate sets per kind, and the honest outcome."""

from __future__ import annotations

from dataclasses import dataclass, field

from opindex.live.pipeline import Enrich, Recency
from opindex.records import Record
from opindex.search import FieldMatch, Ranked, SearchDocument


@dataclass(frozen=True, slots=True)
class LiveHit:
    """One ranked record: its Record (display/filter data) and its ranking.

    ``ranked.record`` is the SearchDocument that was scored; ``ranked.matches`` point at
    field values by ``value_index`` (see ``ref_of``).
    """

    record: Record
    ranked: Ranked[SearchDocument]

    @property
    def score(self) -> float:
        """The record score (0..1)."""
        return self.ranked.score

    @property
    def matched_fields(self) -> list[str]:
        """Names of the fields that matched, best first."""
        return [match.field for match in self.ranked.matches]

    def ref_of(self, match: FieldMatch) -> int | None:
        """The sub-record (comment, agenda item) the matched value belongs to, if any."""
        values = self.ranked.record.fields.get(match.field, ())
        if 0 <= match.value_index < len(values):
            return values[match.value_index].ref
        return None


@dataclass(slots=True)
class CandidateSet:
    """What one kind fetched for a session: shallow candidates in API order, and how to
    read their deep content (``enrich`` None: nothing to enrich)."""

    records: list[Record]
    enrich: Enrich | None = None
    recency: Recency | None = None
    notes: list[str] = field(default_factory=list)
    failures: int = 0
    """Records the fetch itself could not read (e.g. wiki ids whose probe failed)."""
    incomplete: bool = False
    """True when the fetch knows it did not see every candidate (wiki discovery cut short
    by its per-search budget): the outcome is then degraded."""


@dataclass(frozen=True, slots=True)
class LiveOutcome:
    """One run of a live session.

    ``degraded`` is True when some content could not be read (enrichment or discovery
    failures, counted in ``enrichment_failures``): "nothing matched" and "could not read
    everything" are never the same answer. ``notes`` explain limits in plain words
    (server capabilities, caps, incomplete discovery). ``requests`` counts the HTTP
    requests the tenant's client sent during the run (retries included; a search running
    concurrently on the same client is counted too). ``enrichment_calls`` is the number of
    records whose deep content this run tried to read; ``candidates`` the records ranked.
    """

    hits: list[LiveHit]
    degraded: bool
    enrichment_failures: int
    notes: list[str]
    requests: int
    enrichment_calls: int = 0
    candidates: int = 0
