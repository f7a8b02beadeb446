"""One opened generation: its Tantivy index, its analysis store and reload tracking."""

from __future__ import annotations

import json
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import tantivy

from opindex.engine import AnalysisStore, Vocabulary, create_store
from opindex.errors import IndexDamagedError, IndexUnavailableError
from opindex.index import checksums, record_codec, verification_record
from opindex.index import schema as s
from opindex.index.generations import full_disk_note
from opindex.index.record_dictionary import RecordDictionaries
from opindex.index.verification_record import VerificationRecord
from opindex.records import Record

META_FILE = "meta.json"
# Decoded records kept per tenant between two commits (~3 KB each in memory). A search
# reads only the records it returns (the analysis store ranks), so this covers a page of
# results and the reads that follow it; 256 cost ~6.5 MiB more over 10 tenants for
# ~0.07 ms less per search (DECISIONS D141).
RECORD_CACHE_SIZE = 32
# Tantivy keeps the last 100 decompressed 16 KiB blocks of the doc store per segment
# (1.7 MiB per compacted tenant) and tantivy-py 0.27 offers no setting for it; reloading
# the reader on the same commit starts new, empty block caches. After this many store
# reads the reader is reloaded, which bounds the cache at as many blocks (DECISIONS D146).
STORE_READS_PER_RELOAD = 16


@contextmanager
def tantivy_errors(path: Path, action: str) -> Iterator[None]:
    """Turn Tantivy failures (errors and Rust panics) into IndexUnavailableError.

    A failure is checked against the generation's checksums: a file that fails them
    marks the generation damaged (IndexDamagedError naming it), and so does a panic
    (damaged data is the only way opindex makes Tantivy panic).
    """
    try:
        yield
    except IndexDamagedError:
        raise
    except IndexUnavailableError as exc:  # a stored record that does not decode
        _diagnose(path, exc, panicked=False)
        raise
    except (ValueError, OSError) as exc:
        _diagnose(path, exc, panicked=False)
        raise IndexUnavailableError(
            f"index at {path}: cannot {action}: {exc}{full_disk_note(path)}"
        ) from exc
    except BaseException as exc:
        # A corrupt file can make Tantivy panic; pyo3 raises PanicException, which
        # derives from BaseException and has no importable name.
        if type(exc).__name__ != "PanicException":
            raise
        _diagnose(path, exc, panicked=True)
        raise IndexUnavailableError(f"index at {path}: cannot {action}: {exc}") from exc


def _diagnose(path: Path, exc: BaseException, *, panicked: bool) -> None:
    """Raise IndexDamagedError (and record it) if the failure *exc* comes from damage."""
    try:
        checksums.verify_generation(path)
    except IndexDamagedError as damage:
        checksums.mark_damaged(path, damage)
        raise damage from exc
    if panicked:
        found = checksums.tantivy_damage(path, str(exc))
        checksums.mark_damaged(path, found)
        raise found from exc


@contextmanager
def analysis_errors(path: Path) -> Iterator[None]:
    """Record damage the analysis store finds (a file failing its checksum) as damage of
    the generation at *path*, and turn an array out of bounds into such damage."""
    try:
        yield
    except IndexDamagedError as found:
        checksums.mark_damaged(path, found)
        raise
    except (IndexError, ValueError) as exc:  # verified files hold no such thing
        unreadable = checksums.damaged_error(path, "analysis", f"cannot be read ({exc})")
        checksums.mark_damaged(path, unreadable)
        raise unreadable from exc


def check_integrity(
    path: Path,
    seen: dict[str, checksums.Stamp] | None = None,
    trusted: Mapping[str, checksums.VerifiedFile] | None = None,
) -> checksums.Verification:
    """Raise IndexDamagedError if the generation at *path* was marked damaged or fails
    its checksums (recording the damage); *seen*, *trusted*: see
    ``checksums.verify_generation``."""
    recorded = checksums.recorded_damage(path)
    if recorded is not None:
        raise recorded
    try:
        return checksums.verify_generation(path, seen=seen, trusted=trusted)
    except IndexDamagedError as damage:
        checksums.mark_damaged(path, damage)
        raise


def hit_count(result: tantivy.SearchResult) -> int:
    """The number of matching documents of a search run with count=True."""
    count = result.count  # type: ignore[attr-defined]  # missing from the 0.27 stubs
    return int(count) if count is not None else 0


def _meta_stamp(path: Path) -> tuple[int, int, int] | None:
    try:
        st = os.stat(path / META_FILE)
    except FileNotFoundError:
        return None
    return (st.st_ino, st.st_mtime_ns, st.st_size)


class RecordCache:
    """Decoded records of one searcher, least recently used dropped first.

    Decoding a stored record costs tens of microseconds, and a search decodes hundreds;
    repeated and overlapping searches between two commits reuse them. A new cache
    starts with every reload (doc addresses change with merges).
    """

    def __init__(
        self,
        capacity: int,
        dictionaries: RecordDictionaries,
        on_store_read: Callable[[], None] | None = None,
    ) -> None:
        self.capacity = capacity
        self._dictionaries = dictionaries
        self._on_store_read = on_store_read
        self._records: OrderedDict[tuple[int, int], Record] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, searcher: tantivy.Searcher, address: tantivy.DocAddress) -> Record:
        """The record stored at *address*."""
        key = (address.segment_ord, address.doc)
        with self._lock:
            cached = self._records.get(key)
            if cached is not None:
                self._records.move_to_end(key)
                return cached
        stored = searcher.doc(address).get_first(s.RECORD)
        if not isinstance(stored, bytes):
            raise IndexUnavailableError("an indexed document has no stored record")
        record = record_codec.decode(self._dictionaries.decompress(stored))
        if self._on_store_read is not None:
            self._on_store_read()
        with self._lock:
            self._records[key] = record
            if len(self._records) > self.capacity:
                self._records.popitem(last=False)
        return record


@dataclass(frozen=True, slots=True)
class Snapshot:
    """A searcher, the reload count it belongs to, and its decoded-record cache."""

    generation: GenerationIndex
    searcher: tantivy.Searcher
    reload_count: int
    records: RecordCache

    def record_by_id(self, kind: str, record_id: int) -> Record | None:
        """The stored record of *kind* with *record_id*, None if absent."""
        key = record_codec.record_key(kind, record_id)
        with tantivy_errors(self.generation.path, "read"):
            query = tantivy.Query.term_query(self.generation.schema, s.KEY, key)
            hits = self.searcher.search(query, 1).hits
            return self.record(hits[0][1]) if hits else None

    def record(self, address: tantivy.DocAddress) -> Record:
        """The stored record of a hit."""
        return self.records.get(self.searcher, address)


class GenerationIndex:
    """The Tantivy index of one generation directory, opened for reading.

    Opening it verifies every file, except those another process verified less than an
    hour ago that are unchanged since (``verification_record``; *clock*: seconds since
    the epoch), and records what it verified for the processes that follow."""

    def __init__(
        self,
        name: str,
        path: Path,
        record_cache: int = RECORD_CACHE_SIZE,
        *,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.name = name
        self.path = path
        self._verified: dict[str, checksums.Stamp] = {}
        try:
            s.check_version(path)
        except IndexUnavailableError:
            check_integrity(path)  # a damaged version file is damage, not another version
            raise
        started = clock()
        remembered = verification_record.read_record(path, started)
        trusted = remembered.files if remembered is not None else {}
        verification = check_integrity(path, self._verified, trusted)  # before Tantivy
        self.analysis = AnalysisStore(path)
        with analysis_errors(path):
            self.analysis.view(trusted)  # maps and verifies the analysis files, before Tantivy
        if not tantivy.Index.exists(str(path)):
            raise IndexUnavailableError(f"index at {path}: no Tantivy index files")
        with tantivy_errors(path, "open"):
            self.index = tantivy.Index.open(str(path))
            self.index.config_reader(reload_policy="manual")
        self.schema = self.index.schema
        self._lock = threading.Lock()
        self._stamp = _meta_stamp(path)
        self._reload_count = 0
        self._record_cache = record_cache
        self._store_reads = 0
        self.dictionaries = RecordDictionaries(path)
        self._records = RecordCache(record_cache, self.dictionaries, self._count_store_read)
        self._remember(remembered, verification, started)

    def _remember(
        self,
        remembered: VerificationRecord | None,
        verification: checksums.Verification,
        started: float,
    ) -> None:
        """Record the files verified at open for the processes that open it next: as old
        as the oldest verification among them, unless nothing new was verified."""
        files = {**verification.verified, **self.analysis.files().verified()}
        settled = verification_record.settled(files, started)
        if not settled or (remembered is not None and settled.items() <= remembered.files.items()):
            return
        verified_at = remembered.verified_at if remembered is not None else started
        verification_record.write_record(self.path, VerificationRecord(verified_at, settled))

    @classmethod
    def create(cls, name: str, path: Path) -> GenerationIndex:
        """Create an empty index in the (empty) directory *path* and open it."""
        try:
            path.mkdir(parents=True, exist_ok=True)
            with tantivy_errors(path, "create"):
                tantivy.Index(s.build_schema(), path=str(path), reuse=False)
            create_store(path)
            s.write_version(path)
        except OSError as exc:  # a full disk, a read-only directory
            raise IndexUnavailableError(f"cannot create an index at {path}: {exc}") from exc
        checksums.record(path)
        return cls(name, path)

    def refresh(self, force: bool = False) -> None:
        """Reload the searcher if a commit happened since the last look (cheap stat)."""
        stamp = _meta_stamp(self.path)
        if stamp is None:
            raise IndexUnavailableError(f"index at {self.path}: {META_FILE} is missing")
        with self._lock:
            if stamp == self._stamp and not force:
                recorded = checksums.recorded_damage(self.path)  # found by another process?
                if recorded is not None:
                    raise recorded
                return
            self._reload_verified(stamp)

    def _reload_verified(self, stamp: tuple[int, int, int]) -> None:
        """Verify the files of the commit *stamp* describes and reload onto it (locked)."""
        check_integrity(self.path, self._verified)  # the files of the new commit
        with tantivy_errors(self.path, "reload"):
            self.index.reload()
        self._stamp = stamp
        self._reload_count += 1
        self._store_reads = 0
        self._records = RecordCache(self._record_cache, self.dictionaries, self._count_store_read)

    def _count_store_read(self) -> None:
        """Count a read of Tantivy's doc store; every STORE_READS_PER_RELOAD of them,
        reload the reader on the same commit, which drops its decompressed blocks."""
        with self._lock:
            self._store_reads += 1
            if self._store_reads < STORE_READS_PER_RELOAD:
                return
            self._store_reads = 0
            if _meta_stamp(self.path) != self._stamp:
                return  # a new commit: refresh() verifies its files before reloading
            try:
                with tantivy_errors(self.path, "reload"):
                    self.index.reload()
            except IndexUnavailableError:
                if _meta_stamp(self.path) is None:  # removed (a rebuild published another
                    return  # generation): keep the mapped files until refresh() moves on
                raise
            stamp = _meta_stamp(self.path)
            if stamp is None:
                return  # removed just after the reload onto the same commit: as above
            if stamp != self._stamp:  # a commit landed meanwhile: no snapshot before it is verified
                self._reload_verified(stamp)

    def snapshot(self) -> Snapshot:
        """The current searcher."""
        with self._lock, tantivy_errors(self.path, "open a searcher"):
            return Snapshot(self, self.index.searcher(), self._reload_count, self._records)

    def vocabulary(self) -> Vocabulary:
        """Every token of the analysis store's newest commit."""
        with analysis_errors(self.path):
            return Vocabulary(self.analysis.view().vocabulary)

    def check_complete(self) -> None:
        """Raise IndexUnavailableError if the analysis store describes an older commit than
        Tantivy's. Between the two commits of a writer that is normal (readers then use
        the previous analysis for a moment); only a caller that holds the tenant's lock,
        so that no commit can be under way, may call it an interrupted commit."""
        with analysis_errors(self.path):
            analysed = self.analysis.manifest()["opstamp"]
        if analysed != self.opstamp():
            raise IndexUnavailableError(
                f"index at {self.path}: its analysis describes commit {analysed}, the index is "
                f"at commit {self.opstamp()} (an interrupted commit); the next sync builds a "
                "new index"
            )

    def commit_disagreement(self) -> str | None:
        """What disagrees about the last commit among its three records (Tantivy's
        meta.json, the analysis store's manifest, checksums.json), None when all three
        name the same opstamp. Like ``check_complete``, only a caller holding the
        tenant's lock may take a disagreement for an interrupted commit."""
        committed = self.opstamp()
        with analysis_errors(self.path):
            analysed = self.analysis.manifest()["opstamp"]
        if analysed != committed:
            return f"its analysis describes commit {analysed}, Tantivy is at commit {committed}"
        recorded = checksums.read(self.path)
        if recorded is None or recorded.opstamp != committed:
            held = "no commit" if recorded is None else f"commit {recorded.opstamp}"
            return f"its checksums describe {held}, Tantivy is at commit {committed}"
        return None

    def opstamp(self) -> int:
        """The opstamp of the last commit, read from meta.json."""
        try:
            meta = json.loads((self.path / META_FILE).read_text(encoding="utf-8"))
            return int(meta.get("opstamp", 0))
        except (OSError, ValueError, TypeError, AttributeError) as exc:
            raise IndexUnavailableError(f"index at {self.path}: unreadable meta.json") from exc

    def bytes_on_disk(self) -> int:
        """Total size of the files of this generation, its analysis store included."""
        return sum(path.lstat().st_size for path in self.path.rglob("*") if path.is_file())
