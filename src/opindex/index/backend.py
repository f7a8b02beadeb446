"""The small interface every index backend offers (local Tantivy today, a cluster later)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Protocol

from opindex.engine import IndexFilters, Vocabulary
from opindex.index.candidates import CandidateList
from opindex.records import Record
from opindex.search import Alternative, Query, RecordBests


@dataclass(frozen=True, slots=True)
class CommitInfo:
    """What a commit made durable; the state DB records it beside the sync cursor.

    ``opstamp`` grows with every commit of one generation; a rebuild starts a new
    generation, so (generation, opstamp) identifies an index state.
    """

    generation: str
    opstamp: int
    documents: int


@dataclass(frozen=True, slots=True)
class IndexStats:
    """Size and content of a tenant index."""

    generation: str
    schema_version: int
    opstamp: int
    documents: int
    documents_per_kind: Mapping[str, int]
    bytes_on_disk: int
    segments: int
    terms: int  # distinct terms in the vocabulary (reading it verifies its checksum)


@dataclass(frozen=True, slots=True)
class MatchedHits:
    """A fuzzy query's best records, each with its score and what it matched.

    ``hits``: (record, rounded score, the engine's ``RecordBests``: each matching field's
    best value and every value's score), best first. ``total``: the records passing the
    gate. ``token_text`` names a token id of those details (for snippets)."""

    hits: list[tuple[Record, float, RecordBests]]
    total: int
    token_text: Callable[[int], str]


class IndexBackend(Protocol):
    """Storage, ranking and candidate retrieval for one tenant.

    Writes become visible to ranked()/candidates()/get() after commit(). ranked() returns
    the scorer's best *limit* records of a fuzzy query over every record, their scores and
    the exact number passing its gate; candidates() returns a superset of the records the
    scorer accepts, capped at *limit*, and says in the returned CandidateList whether the
    cap cut anything. ranked_hits() is ranked() with what each record matched (the
    engine's match details, from which the service builds fields and snippets).
    """

    def upsert(self, records: Iterable[Record]) -> int: ...

    def delete(self, kind: str, ids: Iterable[int]) -> int: ...

    def commit(self) -> CommitInfo: ...

    def candidates(
        self, query: Query, kind: str, filters: IndexFilters, limit: int
    ) -> CandidateList: ...

    def ranked(
        self, query: Query, kind: str, filters: IndexFilters, limit: int, *, min_score: float
    ) -> tuple[list[Record], list[float], int]: ...

    def ranked_hits(
        self, query: Query, kind: str, filters: IndexFilters, limit: int, *, min_score: float
    ) -> MatchedHits: ...

    def term_frequency(self, kind: str, alternative: Alternative) -> int: ...

    def get(self, kind: str, record_id: int) -> Record | None: ...

    def stats(self) -> IndexStats: ...

    def vocabulary(self) -> Vocabulary: ...

    def commit_label(self) -> str: ...
