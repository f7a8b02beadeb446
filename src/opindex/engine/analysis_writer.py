"""Writing the analysis store: pending records, one commit's files, merges.

The writer lives as long as the Tantivy writer of the same generation (one sync run at a
time holds both). ``commit`` is called after the Tantivy commit with its opstamp: it
writes the new files, then replaces the manifest; files no manifest lists any more are
removed one commit later, so a reader that has just read the previous manifest can
still map them.
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from opindex.engine.analysis_segment import Column, write_arrays
from opindex.engine.analysis_store import (
    MAX_SEGMENTS,
    TABLE_ARRAYS,
    AnalysisStore,
    KindSegment,
    PendingRecord,
    Rows,
    alive_masks,
    manifest_entry,
    write_manifest,
)
from opindex.engine.filters import FILTER_COLUMNS, narrow_column, widen_column
from opindex.engine.packed import LIMIT as PACKED_LIMIT
from opindex.engine.packed import Packed24
from opindex.engine.sorted_sets import unique_sorted
from opindex.engine.trigram_postings import MAX_SLICE_TOKENS, index_arrays, stored_lists
from opindex.engine.vector_rank import ValueTable, table_from_arrays, value_tokens
from opindex.errors import IndexUnavailableError
from opindex.search import Kind

IntArray = npt.NDArray[np.int64]


class AnalysisWriter:
    """Collects upserts and deletes of one generation until ``commit``."""

    def __init__(self, store: AnalysisStore, opstamp: int) -> None:
        self._store = store
        self._manifest = store.manifest()
        if self._manifest["opstamp"] != opstamp:  # the writer's lock rules out a commit
            raise IndexUnavailableError(
                f"index analysis describes commit {self._manifest['opstamp']}, the index is at "
                f"commit {opstamp} (an interrupted commit); the next sync builds a new index"
            )
        self._ids: dict[str, int] = {}
        self._next_id = 0
        for entry in self._manifest["vocabulary"]:
            index = store.files().vocabulary(entry)
            if index.size:
                tokens = index.joined[1:-1].split("\n")
                ids = range(index.base, index.base + index.size)
                self._ids.update(zip(tokens, ids, strict=True))
            self._next_id = max(self._next_id, index.base + index.size)
        self._new_tokens: list[str] = []
        self._pending: dict[str, dict[int, PendingRecord | None]] = {}

    def reopen(self, opstamp: int) -> bool:
        """Whether this writer, after its successful commit, can serve the next one: the
        store's manifest is still the one it wrote (no other writer committed since), at
        Tantivy's *opstamp*. Saves rebuilding the token table (0.5 s at 100k records)."""
        manifest = self._store.manifest()
        return manifest == self._manifest and manifest["opstamp"] == opstamp

    def _token_id(self, token: str) -> int:
        found = self._ids.get(token)
        if found is None:
            found = self._ids[token] = self._next_id
            self._next_id += 1
            self._new_tokens.append(token)
        return found

    def upsert(self, kind: Kind, record_id: int, columns: tuple[int, ...], rows: Rows) -> None:
        """Add or replace a record (by kind and id) in the next commit."""
        token_id = self._token_id
        record = PendingRecord(
            record_id,
            columns,
            bytes(field for field, _ in rows),
            array("q", [len(tokens) for _, tokens in rows]),
            array("i", [token_id(t) for _, tokens in rows for t in tokens]),
        )
        self._pending.setdefault(kind, {})[record_id] = record

    def delete(self, kind: str, record_id: int) -> None:
        """Delete a record (absent ones are ignored) in the next commit."""
        self._pending.setdefault(kind, {})[record_id] = None

    def commit(self, opstamp: int) -> None:
        """Write this commit's files and the manifest naming Tantivy's *opstamp*."""
        manifest: dict[str, Any] = {
            **self._manifest,
            "kinds": {k: list(v) for k, v in self._manifest["kinds"].items()},
            "vocabulary": list(self._manifest["vocabulary"]),
        }
        garbage = list(manifest.pop("garbage", []))
        dropped: list[str] = []
        counter = int(manifest["next"])
        root = self._store.root
        base = self._next_id - len(self._new_tokens)
        for start in range(0, len(self._new_tokens), SLICE_TOKENS):  # a slice's postings
            tokens = self._new_tokens[start : start + SLICE_TOKENS]  # hold its ids in 24 bits
            text = ("\n" + "\n".join(tokens) + "\n").encode("utf-8")
            check = write_arrays(
                root / f"vocabulary-{counter:06d}.bin",
                _vocabulary_arrays(text, len(tokens)),
                {"tokens": len(tokens)},
            )
            manifest["vocabulary"].append(
                manifest_entry(check, base=base + start, count=len(tokens))
            )
            counter += 1
        merging = newest_to_merge([int(e["count"]) for e in manifest["vocabulary"]], SLICE_TOKENS)
        if merging:
            files = self._store.files()
            group = manifest["vocabulary"][-merging:]
            slices = [files.vocabulary(e) for e in group]
            text = ("\n" + "".join(x.joined[1:] for x in slices if x.size)).encode("utf-8")
            count = sum(x.size for x in slices)
            check = write_arrays(
                root / f"vocabulary-{counter:06d}.bin",
                _vocabulary_arrays(text, count),
                {"tokens": count},
            )
            dropped.extend(e["name"] for e in group)
            tier = manifest_entry(check, base=int(group[0]["base"]), count=count)
            manifest["vocabulary"] = [*manifest["vocabulary"][:-merging], tier]
            counter += 1
        for kind, pending in self._pending.items():
            records = [record for record in pending.values() if record is not None]
            deleted = np.array(sorted(i for i, r in pending.items() if r is None), np.int64)
            arrays = _segment_arrays(records, deleted)
            check = write_arrays(root / f"{kind}-{counter:06d}.bin", arrays, {"kind": kind})
            manifest["kinds"][kind].append(manifest_entry(check))
            counter += 1
            entries = manifest["kinds"][kind]
            merging = newest_to_merge([int(e["size"]) for e in entries], SEGMENT_BYTES)
            if merging:  # size tiers: a record is rewritten about log(n) times (D167)
                files = self._store.files()
                group = entries[-merging:]
                arrays = _merged([files.segment(e) for e in group], merging < len(entries))
                merged = write_arrays(root / f"{kind}-{counter:06d}.bin", arrays, {"kind": kind})
                dropped.extend(e["name"] for e in group)
                manifest["kinds"][kind] = [*entries[:-merging], manifest_entry(merged)]
                counter += 1
        manifest["next"], manifest["opstamp"], manifest["garbage"] = counter, opstamp, dropped
        write_manifest(root, manifest)
        for name in garbage:
            (root / name).unlink(missing_ok=True)
        self._manifest = manifest
        self._new_tokens = []
        self._pending = {}


TIER_RATIO = 4
"""The newest vocabulary slices are merged while their tokens, times this, reach the next
older slice's (DECISIONS D154)."""


SLICE_TOKENS = MAX_SLICE_TOKENS - 1
"""The most tokens one vocabulary slice holds."""

SEGMENT_BYTES = 384 << 20
"""A merge writes no kind segment larger than this (one commit may). At 1M documents four
work-package segments of 331 MB searched faster than the same records in one of 1,199 MB
(DECISIONS D168), and merging that one held 8.4 GiB (D167)."""


def newest_to_merge(counts: Sequence[int], most: int = SLICE_TOKENS) -> int:
    """How many of the newest vocabulary slices (token *counts*, oldest first), or of a
    kind's segments (file sizes), to merge into one: 0, or at least 2.

    Size tiers, as in a log-structured merge: the newest are merged while, together, they
    hold at least 1/TIER_RATIO of the next older one, so a tenant keeps a few slices or
    segments of growing size (a search reads every one) and a token or record is
    re-indexed about log(n) times over the tenant's life (D154, D167). More than
    ``MAX_SEGMENTS`` are merged whatever their sizes, but a merged one holds at most
    *most*: past that, their number grows with the tenant.
    """
    group, tokens = 1, counts[-1] if counts else 0
    while group < len(counts) and tokens + counts[-group - 1] <= most:
        if tokens * TIER_RATIO < counts[-group - 1] and len(counts) - group < MAX_SEGMENTS:
            break
        tokens += counts[-group - 1]
        group += 1
    return group if group >= 2 else 0


STORED_INDEX_TOKENS = 1 << 16
"""A vocabulary slice of at least this many tokens is stored with its trigram index; a
smaller one without, and a reader builds it at its first look-up (DECISIONS D183)."""


def _vocabulary_arrays(text: bytes, count: int) -> dict[str, Any]:
    """A vocabulary slice of *count* tokens as stored: its text, and its trigram index
    (built once here) when the slice is large; never the token bounds, which readers
    take from the text (DECISIONS D181)."""
    stored: dict[str, Any] = {"text": np.frombuffer(text, dtype=np.uint8)}
    if count < STORED_INDEX_TOKENS:
        return stored
    return stored | stored_lists(index_arrays(text.decode("utf-8")))


def _segment_arrays(records: Sequence[PendingRecord], deleted: IntArray) -> dict[str, Any]:
    """The arrays of a segment holding *records* and naming *deleted* ids."""
    count = sum(len(record.fields) for record in records)
    value_doc = np.repeat(
        np.arange(len(records), dtype=np.int32),
        np.fromiter((len(record.fields) for record in records), np.int64, len(records)),
    )
    value_field = np.frombuffer(b"".join(record.fields for record in records), dtype=np.uint8)
    lengths = np.frombuffer(b"".join(record.lengths.tobytes() for record in records), np.int64)
    value_start = np.zeros(count + 1, dtype=np.int64)
    np.cumsum(lengths, out=value_start[1:])
    tokens = np.frombuffer(b"".join(record.tokens.tobytes() for record in records), np.int32)
    table = table_from_arrays(value_doc, value_field, value_start, tokens)
    columns = np.array([record.columns for record in records], dtype=np.int64).reshape(
        len(records), len(FILTER_COLUMNS)
    )
    arrays: dict[str, Any] = {
        "ids": _narrow_ids(np.array([record.id for record in records], dtype=np.int64)),
        "deleted": deleted,
    }
    arrays.update({name: narrow_column(columns[:, i]) for i, name in enumerate(FILTER_COLUMNS)})
    arrays.update(_table_arrays(table))
    return arrays


def _narrow(array: npt.NDArray[Any]) -> npt.NDArray[Any]:
    """*array* (never negative) in the smallest of uint8 (kept) / uint16 / uint32 that
    holds it."""
    if array.dtype == np.uint8:
        return array
    top = int(array.max()) if len(array) else 0
    for dtype in (np.uint16, np.uint32):
        if top <= np.iinfo(dtype).max:
            return array.astype(dtype)
    return array


def _narrow_ids(ids: npt.NDArray[Any]) -> npt.NDArray[Any]:
    """Record ids in the narrowest unsigned type when none is negative (DECISIONS D150)."""
    return _narrow(ids) if not len(ids) or int(ids.min()) >= 0 else ids.astype(np.int64)


def _table_arrays(table: ValueTable) -> dict[str, Column]:
    """The table's arrays as stored: positions and ids in the narrowest unsigned type
    that holds them (about half the bytes of int32/int64 on a small tenant); value
    positions past 16 bits in three bytes each (DECISIONS D138, D179)."""
    arrays: dict[str, Column] = {name: _narrow(getattr(table, name)) for name in TABLE_ARRAYS}
    values = arrays["posting_values"]
    if values.dtype == np.uint32 and int(np.asarray(values).max()) < PACKED_LIMIT:
        arrays["posting_values"] = Packed24.of(np.asarray(values))
    # the token ids as a list or as their bitmap, whichever is smaller (D181)
    listed = _narrow(table.token_rank.ids())
    words = table.token_rank.words
    if listed.nbytes <= words.nbytes:
        return arrays | {"posting_tokens": listed}
    return arrays | {"token_words": words}


def _merged(segments: Sequence[KindSegment], older: bool = False) -> dict[str, Any]:
    """One segment holding the live records of *segments*, the newest of a kind (their
    tokens copied as ids); with *older* segments left beside it, it names the ids they
    delete that it does not hold, which would otherwise come back from an older one."""
    ids: list[IntArray] = []
    columns: dict[str, list[npt.NDArray[Any]]] = {name: [] for name in FILTER_COLUMNS}
    value_doc: list[npt.NDArray[np.int32]] = []
    value_field: list[npt.NDArray[np.uint8]] = []
    lengths: list[IntArray] = []
    tokens: list[npt.NDArray[Any]] = []
    offset = 0
    for segment, alive in zip(segments, alive_masks(segments), strict=True):
        table = segment.table
        ids.append(segment.ids[alive].astype(np.int64))
        for name in FILTER_COLUMNS:  # widened first: each segment has its own MISSING
            columns[name].append(widen_column(segment.columns[name][alive]))
        renumbered = np.cumsum(alive) - 1 + offset
        keep = alive[table.value_doc]
        value_doc.append(renumbered[table.value_doc[keep]].astype(np.int32))
        value_field.append(table.value_field[keep])
        kept_tokens, sizes = value_tokens(table, np.flatnonzero(keep))
        lengths.append(sizes)
        tokens.append(kept_tokens)
        offset += int(alive.sum())
    size = np.concatenate(lengths) if lengths else np.zeros(0, np.int64)
    value_start = np.zeros(len(size) + 1, dtype=np.int64)
    np.cumsum(size, out=value_start[1:])
    table = table_from_arrays(
        np.concatenate(value_doc), np.concatenate(value_field), value_start, np.concatenate(tokens)
    )
    held = np.concatenate(ids)
    deleted = np.zeros(0, np.int64)
    if older:
        named = unique_sorted(np.concatenate([part.deleted.astype(np.int64) for part in segments]))
        deleted = named[~np.isin(named, held)]
    arrays: dict[str, Any] = {"ids": _narrow_ids(held), "deleted": deleted}
    arrays.update({name: narrow_column(np.concatenate(parts)) for name, parts in columns.items()})
    arrays.update(_table_arrays(table))
    return arrays
