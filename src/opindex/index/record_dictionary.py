"""The stored records' compression: one zlib preset dictionary per kind and generation.

Tantivy compresses its doc store in 16 KiB LZ4 blocks, which took 0.57 bytes per byte of
the records' JSON on the Zipf corpora; deflate with a preset dictionary of the tenant's
own records takes 0.27 on work packages, and a record still decodes on its own, in
about 8 µs (DECISIONS D177). A kind's dictionary is trained from the first records of
that kind a generation stores and never changes afterwards: every record of the kind in
the generation is compressed with it. It is written, fsynced, before any record using it
reaches the Tantivy writer, so the commit that makes such a record visible also makes the
dictionary part of the generation's checksums (an altered or missing dictionary is
damage, as for any file of the generation).

A stored record is one byte, the kind's position in ``KINDS``, followed by the raw
deflate stream of its JSON.
"""

from __future__ import annotations

import os
import threading
import zlib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Final

from opindex.errors import IndexUnavailableError
from opindex.index.checksums import damaged_error, mark_damaged
from opindex.search import KINDS

DICTIONARY_BYTES: Final = 32 * 1024
"""Deflate looks back 32 KiB: a longer dictionary would not be used."""
SAMPLE_RECORDS: Final = 64
"""At most this many of the first records are sampled (evenly) to train a dictionary."""
LEVEL: Final = 6
_WINDOW: Final = -15  # raw deflate: no zlib header or checksum (the generation has them)


def file_name(kind: str) -> str:
    """The dictionary file of *kind* in a generation directory."""
    return f"records-{kind}.zdict"


def train(encoded: Sequence[bytes]) -> bytes:
    """A dictionary for records like *encoded* (JSON, in the order stored): up to
    SAMPLE_RECORDS of them taken evenly, joined, the last DICTIONARY_BYTES (deflate
    reaches the end of a dictionary most cheaply, so what is common should be there)."""
    if not encoded:
        raise ValueError("a dictionary is trained from at least one record")
    step = max(1, len(encoded) // SAMPLE_RECORDS)
    return b"".join(encoded[::step][:SAMPLE_RECORDS])[-DICTIONARY_BYTES:]


def compress(kind: str, data: bytes, dictionary: bytes) -> bytes:
    """The stored form of the JSON *data* of a record of *kind*."""
    packer = zlib.compressobj(LEVEL, zlib.DEFLATED, _WINDOW, zdict=dictionary)
    return bytes([KINDS.index(kind)]) + packer.compress(data) + packer.flush()


def compress_all(
    kinds: Sequence[str], encoded: Sequence[bytes], dictionaries: Mapping[str, bytes]
) -> list[bytes]:
    """The stored forms of records of *kinds* whose JSON is *encoded*."""
    return [
        compress(kind, data, dictionaries[kind]) for kind, data in zip(kinds, encoded, strict=True)
    ]


class RecordDictionaries:
    """The dictionaries of the generation at *path*: read from disk when first needed
    (they never change), created by the writer when a kind is first stored."""

    def __init__(self, path: Path) -> None:
        self._path = path
        self._known: dict[str, bytes] = {}
        self._lock = threading.Lock()

    def get(self, kind: str) -> bytes | None:
        """The dictionary of *kind*, None if the generation has none (yet)."""
        known = self._known.get(kind)  # entries are only ever added: no lock to read
        if known is not None:
            return known
        try:
            data = (self._path / file_name(kind)).read_bytes()
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise IndexUnavailableError(f"cannot read {file_name(kind)}: {exc}") from exc
        with self._lock:
            self._known[kind] = data
        return data

    def ensure(self, kind: str, encoded: Sequence[bytes]) -> bytes:
        """The dictionary of *kind*, trained from *encoded* (and made durable) if the
        generation has none; only the writer calls this."""
        existing = self.get(kind)
        if existing is not None:
            return existing
        data = train(encoded)
        target = self._path / file_name(kind)
        temporary = target.with_name(target.name + ".tmp")
        try:
            with open(temporary, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(temporary, target)
        except OSError as exc:
            temporary.unlink(missing_ok=True)
            raise IndexUnavailableError(f"cannot write {target.name}: {exc}") from exc
        with self._lock:
            self._known[kind] = data
        return data

    def for_batch(self, kinds: Sequence[str], encoded: Sequence[bytes]) -> dict[str, bytes]:
        """The dictionary of each kind of *kinds*, trained from the JSON *encoded* of
        that kind's records in the batch when the generation has none yet."""
        pairs = list(zip(kinds, encoded, strict=True))
        return {
            kind: self.ensure(kind, [data for k, data in pairs if k == kind])
            for kind in dict.fromkeys(kinds)
        }

    def decompress(self, data: bytes) -> bytes:
        """The JSON of the stored record *data*; IndexUnavailableError if it is not one,
        IndexDamagedError if its kind's dictionary is missing."""
        if not data or data[0] >= len(KINDS):
            raise IndexUnavailableError("stored record is malformed: no known kind")
        kind = KINDS[data[0]]
        dictionary = self.get(kind)
        if dictionary is None:  # written before any record of the kind: damage
            missing = damaged_error(self._path, file_name(kind), "is missing")
            mark_damaged(self._path, missing)
            raise missing
        unpacker = zlib.decompressobj(_WINDOW, zdict=dictionary)
        try:
            out = unpacker.decompress(memoryview(data)[1:])
        except zlib.error as exc:
            raise IndexUnavailableError(f"stored record is malformed: {exc}") from exc
        if not unpacker.eof:
            raise IndexUnavailableError("stored record is malformed: it is cut short")
        return out
