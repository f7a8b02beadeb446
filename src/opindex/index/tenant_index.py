"""TenantIndex: one tenant's Tantivy index: writer ownership, reads, candidate retrieval."""

from __future__ import annotations

import threading
from collections.abc import Iterable
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Final

import tantivy

from opindex import kill_points
from opindex.engine import NO_FILTERS, AnalysisWriter, IndexFilters, Vocabulary
from opindex.errors import (
    IndexMissingError,
    IndexUnavailableError,
    InvalidArgumentError,
    SyncInProgressError,
)
from opindex.index import checksums, record_codec
from opindex.index import schema as s
from opindex.index.backend import CommitInfo, IndexBackend, IndexStats, MatchedHits
from opindex.index.candidates import CandidateList
from opindex.index.generation_index import (
    RECORD_CACHE_SIZE,
    GenerationIndex,
    Snapshot,
    analysis_errors,
    hit_count,
    tantivy_errors,
)
from opindex.index.generations import IndexDirectory
from opindex.index.index_filters import check_kind, kind_query
from opindex.index.listing import listed_candidates
from opindex.index.ranked_hits import HitRequest, described_hits, ranked_records
from opindex.index.record_codec import Rows
from opindex.index.record_dictionary import compress_all
from opindex.records import Record
from opindex.search import DEFAULT_MIN_SCORE, KINDS, Alternative, Query

# One indexing thread with a modest heap: a sync is bounded by the API, not by Tantivy,
# and a server process holds no writer at all between syncs.
WRITER_HEAP_BYTES: Final = 32_000_000
DEFAULT_CANDIDATE_LIMIT: Final = 500
SCAN_BUDGET: Final = 20_000


class TenantIndex:
    """The index of one tenant.

    By default it follows the directory's CURRENT pointer: every read first checks (two
    stat calls) whether a rebuild published a new generation or a commit (from this or
    another process) changed the live one, and reloads if so. Pass *generation* to pin
    one generation instead (a rebuild writing a fresh generation). *record_cache* bounds
    the decoded records kept between two commits (0 disables the cache).

    Writes open the Tantivy writer lazily; commit() and rollback() release it, so a
    reader never holds the writer lock. A second writer on the same index (this or
    another process) raises SyncInProgressError.
    """

    def __init__(
        self,
        root: Path | IndexDirectory,
        *,
        generation: str | None = None,
        record_cache: int = RECORD_CACHE_SIZE,
    ) -> None:
        self.directory = root if isinstance(root, IndexDirectory) else IndexDirectory(root)
        self._pinned = generation
        self._record_cache = record_cache
        self._lock = threading.RLock()
        self._live: GenerationIndex | None = None
        self._pointer_stamp: tuple[int, int, int] | None = None
        self._writer: tantivy.IndexWriter | None = None
        self._writer_generation: GenerationIndex | None = None
        self._writer_analysis: AnalysisWriter | None = None
        # the analysis writer of the last successful commit, reused by the next writer of
        # the same generation when nobody wrote in between (DECISIONS D169)
        self._idle: tuple[str, AnalysisWriter] | None = None
        self._hashed: tuple[str, dict[str, checksums.VerifiedFile]] = ("", {})  # by record()

    # --- lifecycle --------------------------------------------------------------------

    @classmethod
    def create(cls, root: Path | IndexDirectory) -> TenantIndex:
        """Open the tenant index at *root*, creating and publishing an empty one if none."""
        directory = root if isinstance(root, IndexDirectory) else IndexDirectory(root)
        if directory.current() is None:
            name = directory.new_generation()
            GenerationIndex.create(name, directory.generation_path(name))
            directory.publish(name)
        return cls(directory)

    @classmethod
    def create_generation(cls, root: Path | IndexDirectory) -> TenantIndex:
        """A new, empty, unpublished generation pinned for writing (a rebuild).

        Fill it, commit(), then publish() it; or discard() it on failure.
        """
        directory = root if isinstance(root, IndexDirectory) else IndexDirectory(root)
        name = directory.new_generation()
        try:
            GenerationIndex.create(name, directory.generation_path(name))
        except IndexUnavailableError:  # a full disk: leave nothing half-made behind
            directory.discard(name)
            raise
        return cls(directory, generation=name)

    @property
    def generation(self) -> str:
        """The name of the generation this index reads now."""
        return self._generation().name

    def commit_label(self) -> str:
        """``generation:opstamp`` of the commit reads see now (changes with every commit)."""
        generation = self._generation()
        return f"{generation.name}:{generation.opstamp()}"

    def publish(self) -> list[str]:
        """Make this pinned generation the live one; removes older generations."""
        with self._lock:
            if self._pinned is None:
                raise InvalidArgumentError("only a pinned (rebuild) generation can be published")
            if self._writer is not None:
                raise InvalidArgumentError("commit or roll back before publishing")
            self.directory.publish(self._pinned)
            self._pinned = None
            self._pointer_stamp = None
            return self.directory.cleanup()

    def discard(self) -> None:
        """Roll back and remove this pinned, unpublished generation."""
        with self._lock:
            if self._pinned is None:
                raise InvalidArgumentError("only a pinned (rebuild) generation can be discarded")
            self.close()
            self.directory.discard(self._pinned)

    def close(self) -> None:
        """Drop uncommitted changes, release the writer lock and the open index."""
        with self._lock:
            self._release_writer(rollback=True)
            self._idle, self._hashed = None, ("", {})
            self._live = None
            self._pointer_stamp = None

    def __enter__(self) -> TenantIndex:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def _generation(self) -> GenerationIndex:
        """The generation to read, reopened/reloaded if something changed on disk."""
        with self._lock:
            if self._pinned is not None:
                name: str | None = self._pinned
            else:
                stamp = self.directory.pointer_stamp()
                if self._live is not None and stamp == self._pointer_stamp:
                    name = self._live.name
                else:
                    name = self.directory.current()
                    if name is None:
                        raise IndexMissingError(
                            f"no index at {self.directory.root}: it was never built"
                        )
                    self._pointer_stamp = stamp
            if self._live is None or self._live.name != name:
                assert name is not None
                path = self.directory.generation_path(name)
                self._live = GenerationIndex(name, path, self._record_cache)
            live = self._live
        live.refresh()
        return live

    def reload(self) -> None:
        """Make every commit visible now (reads also do this by themselves)."""
        self._generation().refresh(force=True)

    def _snapshot(self) -> Snapshot:
        return self._generation().snapshot()

    # --- writes -----------------------------------------------------------------------

    def _open_writer(self) -> tantivy.IndexWriter:
        with self._lock:
            if self._writer is None:
                generation = self._generation()
                try:
                    writer = generation.index.writer(heap_size=WRITER_HEAP_BYTES, num_threads=1)
                except ValueError as exc:
                    if "LockBusy" in str(exc):
                        raise SyncInProgressError(
                            f"index generation {generation.name} at {self.directory.root} "
                            "is being written by another sync or rebuild"
                        ) from exc
                    raise IndexUnavailableError(
                        f"index at {generation.path}: cannot open a writer: {exc}"
                    ) from exc
                try:
                    analysis = self._analysis_writer(generation)
                except IndexUnavailableError:
                    writer.rollback()
                    writer.wait_merging_threads()  # frees the lock again
                    raise
                self._writer, self._writer_generation = writer, generation
                self._writer_analysis = analysis
            return self._writer

    def _analysis_writer(self, generation: GenerationIndex) -> AnalysisWriter:
        """The analysis writer for a new write session of *generation* (under the Tantivy
        writer's lock): the last commit's when still current, else a new one."""
        idle, self._idle = self._idle, None
        opstamp = generation.opstamp()
        if idle is not None and idle[0] == generation.name and idle[1].reopen(opstamp):
            return idle[1]
        return AnalysisWriter(generation.analysis, opstamp)

    def _release_writer(self, *, rollback: bool) -> None:
        writer, self._writer = self._writer, None
        generation, self._writer_generation = self._writer_generation, None
        self._writer_analysis = None  # pending records are dropped with the writer
        if writer is None or generation is None:
            return
        with tantivy_errors(generation.path, "release the writer"):
            if rollback:
                writer.rollback()
            writer.wait_merging_threads()  # consumes the writer: frees the lock and heap

    def upsert(self, records: Iterable[Record]) -> int:
        """Add or replace records (by kind and id); visible after commit()."""
        batch = list(records)
        for record in batch:  # reject the whole batch before writing anything
            record_codec.validate(record)
        analysed = [(record, record_codec.analyse(record)) for record in batch]
        encoded = [record_codec.encode(record) for record in batch]
        while True:
            with self._lock:
                self._open_writer()
                generation = self._writer_generation
                assert generation is not None
                kinds = [record.document.kind for record in batch]
                dictionaries = generation.dictionaries.for_batch(kinds, encoded)
            # compressed outside the lock (readers take it to find their generation)
            documents = [
                (record, rows, record_codec.to_tantivy(record, stored))
                for (record, rows), stored in zip(
                    analysed, compress_all(kinds, encoded, dictionaries), strict=True
                )
            ]
            with self._lock:
                if self._writer_generation is generation:  # else released meanwhile: again
                    self._add(documents)
                    return len(documents)

    def _add(self, documents: list[tuple[Record, Rows, tantivy.Document]]) -> None:
        """Write *documents* (locked, the writer open)."""
        writer = self._open_writer()
        assert self._writer_generation is not None and self._writer_analysis is not None
        with tantivy_errors(self._writer_generation.path, "write"):
            for record, rows, document in documents:
                kind = record.document.kind
                writer.delete_documents_by_term(s.KEY, record_codec.record_key(kind, record.id))
                writer.add_document(document)
                columns = record_codec.filter_values(record)
                self._writer_analysis.upsert(kind, record.id, columns, rows)

    def delete(self, kind: str, ids: Iterable[int]) -> int:
        """Delete records of *kind* by id (absent ids are ignored); visible after commit()."""
        if kind not in KINDS:
            raise InvalidArgumentError(f"unknown record kind {kind!r}; use one of {KINDS}")
        batch = list(ids)
        for record_id in batch:
            if not isinstance(record_id, int) or isinstance(record_id, bool):
                raise InvalidArgumentError(f"record ids must be ints, got {record_id!r}")
        keys = [record_codec.record_key(kind, record_id) for record_id in batch]
        with self._lock:
            writer = self._open_writer()
            assert self._writer_generation is not None
            assert self._writer_analysis is not None
            with tantivy_errors(self._writer_generation.path, "delete"):
                for key, record_id in zip(keys, batch, strict=True):
                    writer.delete_documents_by_term(s.KEY, key)
                    self._writer_analysis.delete(kind, record_id)
        return len(keys)

    def commit(self) -> CommitInfo:
        """Make pending writes durable and visible; releases the writer lock."""
        with self._lock:
            writer, generation = self._writer, self._writer_generation
            if writer is not None and generation is not None:
                analysis = self._writer_analysis
                assert analysis is not None
                with tantivy_errors(generation.path, "commit"):
                    writer.commit()
                self._release_writer(rollback=False)  # waits for merges: the files settle
                kill_points.reached("tantivy-commit")
                analysis.commit(generation.opstamp())
                kill_points.reached("analysis-commit")
                if self._hashed[0] != generation.name:
                    self._hashed = (generation.name, {})
                checksums.record(generation.path, self._hashed[1])
                kill_points.reached("checksums")
                generation.refresh(force=True)
                self._idle = (generation.name, analysis)
            else:
                generation = self._generation()
            return CommitInfo(
                generation=generation.name,
                opstamp=generation.opstamp(),
                documents=generation.snapshot().searcher.num_docs,
            )

    def rollback(self) -> None:
        """Drop pending writes; releases the writer lock."""
        with self._lock:
            self._release_writer(rollback=True)

    # --- reads ------------------------------------------------------------------------

    def get(self, kind: str, record_id: int) -> Record | None:
        """The stored record, None if absent."""
        return self._snapshot().record_by_id(kind, record_id)

    def count(self, kind: str) -> int:
        """Number of live records of *kind*."""
        snap = self._snapshot()
        with tantivy_errors(snap.generation.path, "count"):
            query = kind_query(snap.generation.schema, kind)
            return hit_count(snap.searcher.search(query, 1, count=True))

    def all_ids(self, kind: str) -> list[int]:
        """Ids of every live record of *kind*, ascending."""
        snap = self._snapshot()
        with tantivy_errors(snap.generation.path, "list ids"):
            query = kind_query(snap.generation.schema, kind)
            limit = max(1, snap.searcher.num_docs)
            hits = snap.searcher.search(query, limit, count=False).hits
            values = snap.searcher.fast_field_values(s.ID, [address for _, address in hits])
        return sorted(int(v) for v in values if v is not None)

    def term_frequency(self, kind: str, alternative: Alternative) -> int:
        """Live records of *kind* holding a token *alternative* matches by the scorer's
        rules (typos, prefixes, containment): for drop_term."""
        generation = self._snapshot().generation
        with analysis_errors(generation.path):
            return generation.analysis.view().frequency(check_kind(kind), alternative)

    def vocabulary(self) -> Vocabulary:
        """Every term of the index (all kinds, all fields)."""
        return self._generation().vocabulary()

    def candidates(
        self,
        query: Query,
        kind: str,
        filters: IndexFilters = NO_FILTERS,
        limit: int = DEFAULT_CANDIDATE_LIMIT,
    ) -> CandidateList:
        """A superset of the records of *kind* the scorer could accept for *query*.

        At most *limit* records; see CandidateList for what is reported when the cap
        cuts. Fuzzy queries: the records with a field the scorer scores above 0, best
        first (score, then ascending id), from the analysis store (``ranked``).
        Containment (substring) queries in ascending id order like the ranker's ties;
        queries without terms (which the ranker answers with every record, in the order
        given) most recently updated first.
        """
        if limit < 1:
            raise InvalidArgumentError(f"candidate limit must be at least 1, got {limit}")
        listed = listed_candidates(self._snapshot(), query, kind, filters, limit, SCAN_BUDGET)
        if listed is not None:
            return listed
        records, _, total = self.ranked(query, kind, filters, limit, min_score=0.0)
        return CandidateList(records, total=total, truncated=total > limit)

    def check_complete(self) -> None:
        """Raise IndexUnavailableError if the last commit was interrupted between Tantivy
        and the analysis store (call only while holding the tenant's lock)."""
        self._generation().check_complete()

    def commit_disagreement(self) -> str | None:
        """What disagrees about the last commit (Tantivy, analysis store, checksums), None
        when they agree (meaningful only while holding the tenant's lock)."""
        return self._generation().commit_disagreement()

    def ranked(
        self,
        query: Query,
        kind: str,
        filters: IndexFilters = NO_FILTERS,
        limit: int = DEFAULT_CANDIDATE_LIMIT,
        *,
        min_score: float = DEFAULT_MIN_SCORE,
    ) -> tuple[list[Record], list[float], int]:
        """The best *limit* records of *kind* for a fuzzy *query* with terms, scored over
        the analysis store (every record, no cap), their scores, and how many records
        pass the scorer's gate in all. A record the analysis names but Tantivy no longer
        holds (a commit in progress) is left out."""
        if query.containment or not query.terms:
            raise InvalidArgumentError("ranked() takes a fuzzy query with terms")
        request = HitRequest(query, check_kind(kind), filters, limit, min_score)
        return ranked_records(self._snapshot(), request)

    def ranked_hits(
        self,
        query: Query,
        kind: str,
        filters: IndexFilters = NO_FILTERS,
        limit: int = DEFAULT_CANDIDATE_LIMIT,
        *,
        min_score: float = DEFAULT_MIN_SCORE,
    ) -> MatchedHits:
        """``ranked``, each record with what it matched: the engine's match details,
        from which ``describe_documents`` builds fields and snippets (``described_hits``)."""
        if query.containment or not query.terms:
            raise InvalidArgumentError("ranked_hits() takes a fuzzy query with terms")
        request = HitRequest(query, check_kind(kind), filters, limit, min_score)
        return described_hits(self._snapshot(), request)

    def stats(self) -> IndexStats:
        """Documents per kind, bytes on disk, generation, opstamp and vocabulary size
        (IndexUnavailableError if any of it cannot be read or fails its check)."""
        generation = self._generation()
        per_kind: dict[str, int] = {kind: self.count(kind) for kind in KINDS}
        with tantivy_errors(generation.path, "read stats"):
            searcher = generation.snapshot().searcher
            documents, segments = searcher.num_docs, searcher.num_segments
        return IndexStats(
            generation=generation.name,
            schema_version=s.read_version(generation.path),
            opstamp=generation.opstamp(),
            documents=documents,
            documents_per_kind=per_kind,
            bytes_on_disk=generation.bytes_on_disk(),
            segments=segments,
            terms=generation.vocabulary().size,
        )


if TYPE_CHECKING:  # TenantIndex is the local implementation of the backend interface
    _backend: IndexBackend = TenantIndex(Path())
