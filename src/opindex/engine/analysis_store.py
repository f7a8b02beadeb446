"""Records analysed at commit, and the exhaustive vectorized search over them.

Each generation keeps, beside its Tantivy index, an ``analysis/`` directory: vocabulary
slices (every token once, ids append-only) and per kind segments (each record's field
values as token ids, the postings token -> values, and the filter columns). A commit
writes one new vocabulary slice and one segment per kind it changed; a segment also names
the ids deleted by its commit. The newest segment holding a record (or deleting it) wins.
A kind's newest segments are merged by size tiers, and all of them past ``MAX_SEGMENTS``
(live records only; no text is tokenized again: DECISIONS D167). ``manifest.json``
(replaced atomically after the Tantivy commit) lists the files with their checksums and
the Tantivy opstamp it matches.

A search scores the query's tokens against the vocabulary once (``TokenIndex``), then
every record holding a matching token whose score can still reach the gate
(``score_table``, ``coverage``): ``total`` is exact and no candidate window or cap exists.
"""

from __future__ import annotations

import json
import os
import threading
from array import array
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from opindex.engine.analysis_segment import ArrayFile, FileCheck
from opindex.engine.best_values import field_bests
from opindex.engine.damage import VerifiedFile, damaged_error
from opindex.engine.filters import FILTER_COLUMNS, IndexFilters, filter_mask
from opindex.engine.token_index import TokenIndex, lookup_all, term_matches
from opindex.engine.token_rank import TokenRank
from opindex.engine.top_records import top_rounded
from opindex.engine.trigram_postings import STORED_ARRAYS, lists_bounded, token_bounds
from opindex.engine.vector_rank import TermMatches, ValueTable, gather, score_table
from opindex.errors import IndexUnavailableError
from opindex.search import (
    DEFAULT_MIN_SCORE,
    FIELD_SPECS,
    KINDS,
    Alternative,
    Kind,
    Query,
    RecordBests,
    Term,
    token_texts,
)

DIRECTORY: Final = "analysis"
MANIFEST: Final = "manifest.json"
FORMAT: Final = 5  # 5: short posting lists deflated (D185); 4: D181; 3: D178, D179
MAX_SEGMENTS: Final = 8
TABLE_ARRAYS: Final = tuple(f.name for f in fields(ValueTable) if f.name != "token_rank")
"""A segment file's arrays; beside them it holds the token ids as ``posting_tokens`` or
their bitmap as ``token_words`` (``TokenRank``; DECISIONS D181)."""

NO_TRUST: Final[Mapping[str, VerifiedFile]] = {}
IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]
Rows = list[tuple[int, list[str]]]
"""A record's analysed values: (field position, tokens) field by field."""


@dataclass(frozen=True, slots=True)
class PendingRecord:
    """A record to write: its id, filter column values and analysed values, compactly
    (a full sync holds every record until its commit): per value its field position and
    token count, and all token ids in order."""

    id: int
    columns: tuple[int, ...]  # in FILTER_COLUMNS order
    fields: bytes
    lengths: array[int]  # typecode "q"
    tokens: array[int]  # typecode "i"


@dataclass(frozen=True, slots=True)
class KindSegment:
    """One segment of a kind, mapped."""

    ids: npt.NDArray[Any]  # the narrowest type that holds them (DECISIONS D150)
    deleted: npt.NDArray[np.int64]
    columns: dict[str, npt.NDArray[Any]]  # as stored: index_filters.narrow_column
    table: ValueTable


def _read_manifest(root: Path) -> dict[str, Any]:
    path = root / MANIFEST
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
        if manifest.get("format") != FORMAT:
            raise ValueError("unknown format")
        return dict(manifest)
    except FileNotFoundError as exc:
        raise damaged_error(root.parent, f"{DIRECTORY}/{MANIFEST}", "is missing") from exc
    except (ValueError, AttributeError) as exc:
        raise damaged_error(root.parent, f"{DIRECTORY}/{MANIFEST}", "is malformed") from exc
    except OSError as exc:
        raise IndexUnavailableError(f"index analysis {MANIFEST} is unreadable: {exc}") from exc


def listed_segments(generation: Path) -> list[FileCheck]:
    """Every vocabulary slice and kind segment the generation's manifest lists, with its
    recorded size and SHA-256 (IndexDamagedError when the manifest is missing or
    malformed)."""
    manifest = _read_manifest(generation / DIRECTORY)
    try:
        entries = [*manifest["vocabulary"], *(e for k in manifest["kinds"].values() for e in k)]
        return [_check(entry) for entry in entries]
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise damaged_error(generation, f"{DIRECTORY}/{MANIFEST}", "is malformed") from exc


def _check(entry: dict[str, Any]) -> FileCheck:
    return FileCheck(str(entry["name"]), int(entry["size"]), str(entry["sha256"]))


def manifest_entry(check: FileCheck, **extra: int) -> dict[str, Any]:
    return {"name": check.name, "size": check.size, "sha256": check.sha256, **extra}


def create(generation: Path) -> None:
    """An empty analysis directory for a new generation."""
    root = generation / DIRECTORY
    root.mkdir(exist_ok=True)
    write_manifest(root, {"format": FORMAT, "opstamp": 0, "next": 1, "vocabulary": [],
                           "kinds": {kind: [] for kind in KINDS}})  # fmt: skip


def write_manifest(root: Path, manifest: dict[str, Any]) -> None:
    temporary = root / (MANIFEST + ".tmp")
    try:
        with open(temporary, "w", encoding="utf-8") as handle:
            json.dump(manifest, handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, root / MANIFEST)
    except OSError as exc:
        raise IndexUnavailableError(f"cannot write the index analysis manifest: {exc}") from exc


class _Files:
    """Mapped vocabulary slices and segments of one generation, by file name (files
    never change, so a mapping is reused across manifests), with the stamp and checksum
    each was verified at.

    *trusted* (by path within the generation, ``analysis/<name>``): files another process
    verified, see ``ArrayFile``."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._vocabulary: dict[str, TokenIndex] = {}
        self._segments: dict[str, KindSegment] = {}
        self._verified: dict[str, VerifiedFile] = {}
        self._lock = threading.Lock()

    def _mapped(self, entry: dict[str, Any], trusted: Mapping[str, VerifiedFile]) -> ArrayFile:
        name = entry["name"]
        mapped = ArrayFile(self.root / name, _check(entry), trusted.get(f"{DIRECTORY}/{name}"))
        self._verified[name] = mapped.verified
        return mapped

    def verified(self) -> dict[str, VerifiedFile]:
        """Each mapped file's stamp and checksum when verified, by path in the generation."""
        with self._lock:
            return {f"{DIRECTORY}/{name}": found for name, found in self._verified.items()}

    def vocabulary(
        self, entry: dict[str, Any], trusted: Mapping[str, VerifiedFile] = NO_TRUST
    ) -> TokenIndex:
        with self._lock:
            found = self._vocabulary.get(entry["name"])
            if found is None:
                mapped = self._mapped(entry, trusted)
                text = mapped.array("text")
                joined = text.tobytes().decode("utf-8")
                # a small slice is stored without its trigram index: TokenIndex builds it
                stored = {name: mapped.array(name) for name in STORED_ARRAYS if mapped.has(name)}
                if 0 < len(stored) < len(STORED_ARRAYS):
                    raise mapped.damaged("holds only part of its trigram index")
                if stored and not lists_bounded(stored):
                    raise mapped.damaged("has posting lists out of bounds")
                starts, lengths = token_bounds(text)  # read off the text (D181)
                arrays = {"starts": starts, "lengths": lengths, **stored}
                # ASCII: the mapped UTF-8 bytes are the code points, one byte each
                codes = text if len(text) == len(joined) else None
                found = TokenIndex(joined, int(entry["base"]), arrays, codes)
                self._vocabulary[entry["name"]] = found
            return found

    def segment(
        self, entry: dict[str, Any], trusted: Mapping[str, VerifiedFile] = NO_TRUST
    ) -> KindSegment:
        with self._lock:
            found = self._segments.get(entry["name"])
            if found is None:
                mapped = self._mapped(entry, trusted)
                arrays: dict[str, Any] = {name: mapped.column(name) for name in TABLE_ARRAYS}
                rank = _token_rank(mapped)
                table = ValueTable(**arrays, token_rank=rank)  # values may be packed (D179)
                columns = {n: mapped.integers(n, signed=True) for n in FILTER_COLUMNS}
                ids = mapped.integers("ids", signed=False)
                found = KindSegment(ids, mapped.array("deleted"), columns, table)
                self._segments[entry["name"]] = found
            return found

    def forget(self, keep: set[str]) -> None:
        with self._lock:
            for cache in (self._vocabulary, self._segments, self._verified):
                for name in [n for n in cache if n not in keep]:
                    del cache[name]


@dataclass(frozen=True, slots=True)
class AnalysisView:
    """The analysis of one commit: vocabulary slices and live segments per kind."""

    opstamp: int
    vocabulary: tuple[TokenIndex, ...]
    kinds: dict[str, tuple[tuple[KindSegment, npt.NDArray[np.bool_]], ...]]

    def token_text(self, token: int) -> str:
        """The text of vocabulary token id *token* (KeyError for an unknown id)."""
        for index in self.vocabulary:
            if index.base <= token < index.base + index.size:
                return index.token(token - index.base)
        raise KeyError(token)

    def frequency(self, kind: Kind, alternative: Alternative) -> int:
        """How many live records of *kind* hold a token *alternative* matches."""
        (term,) = term_matches([Term((alternative,))], self.vocabulary)
        return sum(
            int(np.count_nonzero(_holding(segment.table, term.ids, alive)))
            for segment, alive in self.kinds[kind]
        )

    def holding_every(
        self,
        kind: Kind,
        token_sets: Sequence[IntArray | None],
        filters: IndexFilters,
        limit: int,
    ) -> tuple[IntArray, int]:
        """The *limit* lowest ids of the live records of *kind* inside *filters* that hold,
        for each set of token ids of *token_sets*, one of them (None: any record), and how
        many records do in all."""
        parts: list[IntArray] = []
        for segment, alive in self.kinds[kind]:
            mask = filter_mask(segment.columns, filters)
            allowed = alive if mask is None else alive & mask
            for tokens in token_sets:
                if tokens is not None:
                    allowed = _holding(segment.table, tokens, allowed)
            parts.append(segment.ids[allowed].astype(np.int64))  # stored narrow
        found = np.sort(np.concatenate(parts)) if parts else np.zeros(0, dtype=np.int64)
        return found[:limit], len(found)

    def search(
        self,
        query: Query,
        kind: Kind,
        filters: IndexFilters,
        limit: int,
        min_score: float = DEFAULT_MIN_SCORE,
    ) -> tuple[list[tuple[int, float]], int]:
        """The best *limit* (id, score) of *kind* for a fuzzy *query* with terms, and how
        many records pass the scorer's gate in all."""
        ranking = self._ranking(query, kind, filters, min_score)
        best, scores = top_rounded(ranking.ids, ranking.weighted, limit)
        pairs = zip(best.tolist(), scores.tolist(), strict=True)
        found = [(int(ranking.ids[i]), score) for i, score in pairs]
        return found, len(ranking.ids)

    def described(
        self,
        query: Query,
        kind: Kind,
        filters: IndexFilters,
        limit: int,
        min_score: float = DEFAULT_MIN_SCORE,
    ) -> tuple[list[tuple[int, float, RecordBests]], int]:
        """``search``, with each returned record's fields' best values (``field_bests``)."""
        ranking = self._ranking(query, kind, filters, min_score)
        best, scores = top_rounded(ranking.ids, ranking.weighted, limit)
        segments = ranking.segment[best]
        docs = ranking.docs[best]
        found: dict[int, RecordBests] = {}
        for position in np.unique(segments).tolist():
            table = self.kinds[kind][position][0].table
            chosen = np.flatnonzero(segments == position)
            details = field_bests(table, ranking.terms, ranking.phrase, docs[chosen].tolist())
            found.update(zip(chosen.tolist(), details, strict=True))
        ids = ranking.ids
        entries = [
            (int(ids[i]), score, found[rank])
            for rank, (i, score) in enumerate(zip(best.tolist(), scores.tolist(), strict=True))
        ]
        return entries, len(ids)

    def _ranking(
        self, query: Query, kind: Kind, filters: IndexFilters, min_score: float
    ) -> _Ranking:
        terms = term_matches(query.terms, self.vocabulary)
        phrase_tokens = token_texts(query.text)
        phrase_ids = lookup_all(phrase_tokens, self.vocabulary) if phrase_tokens else None
        phrase = np.array(phrase_ids, dtype=np.int32) if phrase_ids else None
        weights = [spec.weight for spec in FIELD_SPECS[kind]]
        id_parts: list[npt.NDArray[np.int64]] = []
        score_parts: list[npt.NDArray[np.float64]] = []
        doc_parts: list[npt.NDArray[np.int64]] = []
        for segment, alive in self.kinds[kind]:
            mask = filter_mask(segment.columns, filters)
            allowed = alive if mask is None else alive & mask
            scored = score_table(segment.table, terms, phrase, weights, allowed, min_score)
            id_parts.append(segment.ids[scored.docs].astype(np.int64))  # stored narrow
            score_parts.append(scored.weighted)
            doc_parts.append(scored.docs)
        if not id_parts:
            empty = np.zeros(0, dtype=np.int64)
            return _Ranking(terms, phrase, empty, np.zeros(0, dtype=np.float64), empty, empty)
        counts = [len(part) for part in id_parts]
        segment_of = np.repeat(np.arange(len(counts), dtype=np.int64), counts)
        return _Ranking(
            terms,
            phrase,
            np.concatenate(id_parts),
            np.concatenate(score_parts),
            np.concatenate(doc_parts),
            segment_of,
        )


@dataclass(frozen=True, slots=True)
class _Ranking:
    """Every record of a kind passing the gate: id, score before rounding (``Scored``),
    segment and position in it."""

    terms: list[TermMatches]
    phrase: npt.NDArray[np.int32] | None
    ids: npt.NDArray[np.int64]
    weighted: npt.NDArray[np.float64]
    docs: npt.NDArray[np.int64]
    segment: npt.NDArray[np.int64]


def _token_rank(mapped: ArrayFile) -> TokenRank:
    """A segment's token ids, stored as their bitmap or as a list."""
    if not mapped.has("token_words"):
        return TokenRank(mapped.integers("posting_tokens", signed=False))
    words = mapped.array("token_words")
    if words.dtype != np.dtype("<u8"):
        raise mapped.damaged(f"array token_words is stored as {words.dtype.str}")
    return TokenRank.of_words(words)


def _holding(table: ValueTable, tokens: IntArray, among: BoolArray) -> BoolArray:
    """Which records of *among* (a mask over the table's records) hold one of the token
    ids *tokens*."""
    if not np.any(among):
        return among
    values, _ = gather(table, TermMatches(tokens, np.zeros(len(tokens))))
    held = np.zeros(len(among), dtype=bool)  # marked, not sorted: values may be many
    held[table.value_doc[values]] = True
    return held & among


def alive_masks(segments: Sequence[KindSegment]) -> list[npt.NDArray[np.bool_]]:
    """Per segment, which of its records no newer segment replaces or deletes.

    The ids of the newer segments are looked up as they are, repeats and all: membership
    needs no set of them (``np.union1d`` sorted them again for every segment, and its
    ``np.unique`` imports ``numpy.ma``, 10 ms of a command line search)."""
    masks: list[npt.NDArray[np.bool_]] = []
    newer: list[npt.NDArray[np.int64]] = []
    for segment in reversed(segments):
        if newer:
            shadow = np.concatenate(newer)
            masks.append(~np.isin(segment.ids, shadow))
        else:
            masks.append(np.ones(len(segment.ids), bool))
        newer += [segment.ids.astype(np.int64), segment.deleted.astype(np.int64)]
    return masks[::-1]


class AnalysisStore:
    """The analysis directory of one generation, read through its manifest."""

    def __init__(self, generation: Path) -> None:
        self.root = generation / DIRECTORY
        self._files = _Files(self.root)
        self._stamp: tuple[int, int, int] | None = None
        self._view: AnalysisView | None = None
        self._lock = threading.Lock()

    def _manifest_stamp(self) -> tuple[int, int, int]:
        try:
            st = os.stat(self.root / MANIFEST)
        except OSError as exc:
            raise IndexUnavailableError(f"index analysis {MANIFEST} is missing") from exc
        return (st.st_ino, st.st_mtime_ns, st.st_size)

    def view(self, trusted: Mapping[str, VerifiedFile] = NO_TRUST) -> AnalysisView:
        """The analysis as of the newest manifest (reloaded when it changed); *trusted*:
        files another process verified (see ``ArrayFile``)."""
        stamp = self._manifest_stamp()
        with self._lock:
            if self._view is not None and stamp == self._stamp:
                return self._view
            manifest = _read_manifest(self.root)
            try:
                files = self._files
                vocabulary = tuple(files.vocabulary(e, trusted) for e in manifest["vocabulary"])
                kinds: dict[str, tuple[tuple[KindSegment, npt.NDArray[np.bool_]], ...]] = {}
                for kind in KINDS:
                    entries = manifest["kinds"].get(kind, [])
                    segments = [files.segment(e, trusted) for e in entries]
                    kinds[kind] = tuple(zip(segments, alive_masks(segments), strict=True))
            except (KeyError, TypeError, ValueError) as exc:
                raise IndexUnavailableError(f"index analysis is malformed: {exc}") from exc
            names = {e["name"] for e in manifest["vocabulary"]}
            names |= {e["name"] for entries in manifest["kinds"].values() for e in entries}
            self._files.forget(names)
            self._view = AnalysisView(int(manifest["opstamp"]), vocabulary, kinds)
            self._stamp = stamp
            return self._view

    def manifest(self) -> dict[str, Any]:
        """The manifest as stored."""
        return _read_manifest(self.root)

    def files(self) -> _Files:
        """The mapped files (shared with a writer of this generation)."""
        return self._files
