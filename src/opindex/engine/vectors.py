"""A tenant's record vectors: embed chunks, store them int8 per record, search by cosine."""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from opindex.embedding import Embedder
from opindex.engine.chunks import CHUNKING_VERSION, PART_CODES, PARTS, Chunk, record_chunks
from opindex.engine.vector_file import (
    ID_LIMIT,
    KIND_SHIFT,
    VectorArrays,
    read_vector_file,
    write_vector_file,
)
from opindex.errors import EmbeddingError
from opindex.records import Record
from opindex.search import KINDS, Kind

RecordKey = tuple[Kind, int]
KIND_CODES: dict[Kind, int] = {kind: code for code, kind in enumerate(KINDS)}
EMBED_BATCH = 1024
_SCORE_BLOCK = 32_768  # chunk rows widened to float32 at a time while scoring


@dataclass(frozen=True, slots=True)
class RecordVectors:
    """The chunks of one record and their unit vectors (one row per chunk)."""

    kind: Kind
    id: int
    chunks: tuple[Chunk, ...]
    vectors: NDArray[np.float32]


@dataclass(frozen=True, slots=True)
class VectorHit:
    """A record found by meaning: its best chunk's cosine ``score``, which ``part`` that
    chunk is, its sub-record ``ref``, and its position among the record's chunks."""

    kind: Kind
    id: int
    score: float
    part: str
    ref: int | None
    chunk: int


def record_key(kind: Kind, record_id: int) -> int:
    """The int64 key a record is stored under (kinds group together, ids ascend)."""
    if not 0 <= record_id < ID_LIMIT:
        raise ValueError(f"record id {record_id} is outside 0..2^{KIND_SHIFT}")
    return (KIND_CODES[kind] << KIND_SHIFT) | record_id


def embed_records(
    records: Iterable[Record], embedder: Embedder, *, batch: int = EMBED_BATCH
) -> list[RecordVectors]:
    """Chunk and embed *records* (texts sent to *embedder* in batches of *batch*)."""
    chunked = [(record, record_chunks(record)) for record in records]
    texts = [chunk.text for _, chunks in chunked for chunk in chunks]
    parts = [embedder.embed(texts[start : start + batch]) for start in range(0, len(texts), batch)]
    matrix = np.vstack(parts) if parts else np.zeros((0, embedder.dimension), np.float32)
    if matrix.shape[0] != len(texts):
        raise EmbeddingError(
            f"{embedder.model_id}: {matrix.shape[0]} vectors for {len(texts)} texts"
        )
    out: list[RecordVectors] = []
    position = 0
    for record, chunks in chunked:
        rows = matrix[position : position + len(chunks)]
        position += len(chunks)
        out.append(RecordVectors(record.document.kind, record.id, chunks, rows))
    return out


def quantize(vectors: NDArray[np.float32]) -> tuple[NDArray[np.int8], NDArray[np.float32]]:
    """Rows as int8 with one scale each (row ≈ scale × int8 row; zero rows stay zero)."""
    peak = np.abs(vectors).max(axis=1) if len(vectors) else np.zeros(0, np.float32)
    scales = (peak / 127.0).astype(np.float32)
    safe = np.where(scales > 0, scales, 1.0).astype(np.float32)
    quantized = np.clip(np.rint(vectors / safe[:, None]), -127, 127).astype(np.int8)
    return quantized, scales


class VectorStore:
    """The vectors of one index generation, read from one memory-mapped file.

    A store never changes: :meth:`updated` writes the next generation's file. Every
    stored record has at least one chunk; a record whose chunks are all blank is absent.
    """

    def __init__(self, path: Path, header: dict[str, Any], arrays: VectorArrays) -> None:
        self.path = path
        self.model = str(header["model"])
        self.chunking = int(header["chunking"])
        self.dimension = int(header["dimension"])
        self._a = arrays

    @classmethod
    def open(cls, path: Path, *, model: str | None = None, verify: bool = True) -> VectorStore:
        """The store in *path*; VectorModelMismatchError unless it was made by *model*
        (when given) with today's chunking, IndexDamagedError if the file is damaged."""
        header, arrays = read_vector_file(
            path,
            model=model,
            chunking=CHUNKING_VERSION if model is not None else None,
            verify=verify,
        )
        return cls(path, header, arrays)

    @classmethod
    def create(
        cls, path: Path, entries: Iterable[RecordVectors], *, model: str, dimension: int
    ) -> VectorStore:
        """A new store at *path* holding *entries*."""
        empty = VectorArrays(
            keys=np.zeros(0, np.int64),
            starts=np.zeros(1, np.int64),
            scales=np.zeros(0, np.float32),
            refs=np.zeros(0, np.int64),
            parts=np.zeros(0, np.uint8),
            vectors=np.zeros((0, dimension), np.int8),
        )
        header = {"model": model, "chunking": CHUNKING_VERSION, "dimension": dimension}
        return cls(path, header, empty).updated(path, upserts=entries)

    @property
    def record_count(self) -> int:
        return len(self._a.keys)

    @property
    def chunk_count(self) -> int:
        return len(self._a.scales)

    def keys(self) -> list[RecordKey]:
        """Every stored record, in stored order (by kind, then id)."""
        return [(KINDS[int(key) >> KIND_SHIFT], int(key) & (ID_LIMIT - 1)) for key in self._a.keys]

    def position(self, kind: Kind, record_id: int) -> int | None:
        """Where the record sits in the record arrays (and masks), or None if absent."""
        key = record_key(kind, record_id)
        index = int(np.searchsorted(self._a.keys, key))
        return index if index < len(self._a.keys) and self._a.keys[index] == key else None

    def mask_of(self, keys: Iterable[RecordKey]) -> NDArray[np.bool_]:
        """A record filter holding exactly *keys* (absent ones are ignored)."""
        mask = np.zeros(self.record_count, dtype=np.bool_)
        wanted = np.fromiter((record_key(k, i) for k, i in keys), dtype=np.int64)
        mask[np.isin(self._a.keys, wanted)] = True
        return mask

    def kind_mask(self, kinds: Collection[Kind]) -> NDArray[np.bool_]:
        """A record filter holding every record of *kinds*."""
        codes = np.array([KIND_CODES[kind] for kind in kinds], dtype=np.int64)
        return np.isin(self._a.keys >> KIND_SHIFT, codes)

    def search(
        self, query: NDArray[np.float32], k: int, mask: NDArray[np.bool_] | None = None
    ) -> list[VectorHit]:
        """The *k* records (of *mask*, a boolean array over records) whose best chunk is
        nearest to the unit vector *query*, best first (ties by kind, then id)."""
        if query.shape != (self.dimension,):
            raise EmbeddingError(
                f"query vector has shape {query.shape}, the store holds {self.dimension} dimensions"
            )
        if mask is not None and mask.shape != (self.record_count,):
            raise ValueError(f"mask has shape {mask.shape}, expected ({self.record_count},)")
        if k < 1 or self.record_count == 0:
            return []
        scores = self._chunk_scores(np.asarray(query, dtype=np.float32))
        best = np.maximum.reduceat(scores, self._a.starts[:-1])
        if mask is not None:
            best = np.where(mask, best, -np.inf)
        eligible = int(np.isfinite(best).sum())
        count = min(k, eligible)
        if count == 0:
            return []
        top = np.argpartition(-best, count - 1)[:count]
        order = sorted(top.tolist(), key=lambda r: (-float(best[r]), int(self._a.keys[r])))
        return [self._hit(r, scores) for r in order]

    def updated(
        self,
        path: Path,
        *,
        upserts: Iterable[RecordVectors] = (),
        deletes: Iterable[RecordKey] = (),
    ) -> VectorStore:
        """Write to *path* this store with *deletes* removed and *upserts* added or
        replacing their record's vectors; return the new store (this one is unchanged)."""
        new = [entry for entry in upserts]
        new_keys = np.array([record_key(e.kind, e.id) for e in new], dtype=np.int64)
        if len(np.unique(new_keys)) != len(new_keys):
            raise ValueError("a record appears twice among the upserts")
        for entry in new:
            if entry.vectors.shape != (len(entry.chunks), self.dimension):
                raise EmbeddingError(
                    f"{entry.kind} {entry.id}: vectors of shape {entry.vectors.shape} for"
                    f" {len(entry.chunks)} chunks of {self.dimension} dimensions"
                )
        gone = np.array([record_key(k, i) for k, i in deletes], dtype=np.int64)
        keep = ~np.isin(self._a.keys, np.concatenate([gone, new_keys]))
        counts = np.diff(self._a.starts)
        keep_chunks = np.repeat(keep, counts)
        filled = [e for e in new if e.chunks]
        new_rows = (
            np.vstack([e.vectors for e in filled]).astype(np.float32)
            if filled
            else np.zeros((0, self.dimension), np.float32)
        )
        quantized, new_scales = quantize(new_rows)
        filled_keys = np.array([record_key(e.kind, e.id) for e in filled], dtype=np.int64)
        keys = np.concatenate([self._a.keys[keep], filled_keys])
        counts_all = np.concatenate([counts[keep], [len(e.chunks) for e in filled]]).astype(
            np.int64
        )
        refs_new = [-1 if c.ref is None else c.ref for e in filled for c in e.chunks]
        parts_new = [PART_CODES[c.part] for e in filled for c in e.chunks]
        record_order = np.argsort(keys, kind="stable")
        rank = np.empty_like(record_order)
        rank[record_order] = np.arange(len(record_order))
        chunk_owner = np.repeat(np.arange(len(keys)), counts_all)
        chunk_order = np.argsort(rank[chunk_owner], kind="stable")
        arrays = VectorArrays(
            keys=keys.astype(np.int64)[record_order],
            starts=np.concatenate([[0], np.cumsum(counts_all[record_order])]).astype(np.int64),
            scales=np.concatenate([self._a.scales[keep_chunks], new_scales])[chunk_order],
            refs=np.concatenate([self._a.refs[keep_chunks], np.array(refs_new, np.int64)])[
                chunk_order
            ],
            parts=np.concatenate([self._a.parts[keep_chunks], np.array(parts_new, np.uint8)])[
                chunk_order
            ],
            vectors=np.concatenate([self._a.vectors[keep_chunks], quantized])[chunk_order],
        )
        write_vector_file(path, arrays, model=self.model, chunking=self.chunking)
        return VectorStore.open(path, model=self.model)

    def chunk_vectors(self, kind: Kind, record_id: int) -> NDArray[np.float32]:
        """The record's chunk vectors as stored (dequantized), one row per chunk."""
        index = self.position(kind, record_id)
        if index is None:
            return np.zeros((0, self.dimension), np.float32)
        start, end = int(self._a.starts[index]), int(self._a.starts[index + 1])
        rows = self._a.vectors[start:end].astype(np.float32)
        return rows * self._a.scales[start:end, None]

    def _chunk_scores(self, query: NDArray[np.float32]) -> NDArray[np.float32]:
        scores = np.empty(self.chunk_count, dtype=np.float32)
        for start in range(0, self.chunk_count, _SCORE_BLOCK):
            block = self._a.vectors[start : start + _SCORE_BLOCK].astype(np.float32)
            scores[start : start + len(block)] = block @ query
        scores *= self._a.scales
        return scores

    def _hit(self, record: int, scores: NDArray[np.float32]) -> VectorHit:
        start, end = int(self._a.starts[record]), int(self._a.starts[record + 1])
        chunk = int(np.argmax(scores[start:end]))
        key = int(self._a.keys[record])
        ref = int(self._a.refs[start + chunk])
        return VectorHit(
            kind=KINDS[key >> KIND_SHIFT],
            id=key & (ID_LIMIT - 1),
            score=float(scores[start + chunk]),
            part=PARTS[int(self._a.parts[start + chunk])],
            ref=None if ref < 0 else ref,
            chunk=chunk,
        )
