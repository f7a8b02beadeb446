"""Analysis segment files: named numpy arrays in one immutable, memory-mapped file.

A file is ``MAGIC``, the header's length (8 bytes, little endian), a JSON header naming
each array's dtype, length and offset, then the arrays, each aligned to 64 bytes (an id
array packed in three bytes per value is named ``<u3``: DECISIONS D138). Files
are written to a temporary name, fsynced and renamed, and never changed afterwards; the
manifest that lists them records each one's length and SHA-256, checked when a process
first maps it (unless another process verified the same file, unchanged, less than an
hour ago: DECISIONS D158).
"""

from __future__ import annotations

import hashlib
import json
import mmap
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from opindex.engine.damage import VerifiedFile, damaged_error
from opindex.engine.packed import DTYPE as PACKED_DTYPE
from opindex.engine.packed import Packed24, packed_size
from opindex.errors import IndexDamagedError, IndexUnavailableError

MAGIC: Final = b"OPXSEG02"
_ALIGN: Final = 64


def _damage(path: Path, reason: str) -> IndexDamagedError:
    """*path* (generation/analysis/file) is damaged."""
    return damaged_error(path.parent.parent, f"{path.parent.name}/{path.name}", reason)


@dataclass(frozen=True, slots=True)
class FileCheck:
    """What the manifest records of a segment file."""

    name: str
    size: int
    sha256: str


Column = npt.NDArray[Any] | Packed24
"""An array as written: a numpy array (1-D) or packed ids."""


def _layout(array: Column) -> tuple[str, int, int]:
    """The header's dtype, the length and the bytes of *array* as written."""
    if isinstance(array, Packed24):
        return PACKED_DTYPE, len(array), packed_size(len(array))
    return array.dtype.str, int(array.shape[0]), array.nbytes


def _bytes(array: Column) -> bytes:
    if isinstance(array, Packed24):
        return array.to_bytes()
    return np.ascontiguousarray(array).tobytes()


def write_arrays(path: Path, arrays: dict[str, Column], meta: dict[str, Any]) -> FileCheck:
    """Write *arrays* and *meta* to *path* atomically; its length and checksum."""
    entries: dict[str, list[Any]] = {}
    offset = 0
    for name, array in arrays.items():
        dtype, count, size = _layout(array)
        entries[name] = [dtype, count, offset]
        offset += -(-size // _ALIGN) * _ALIGN
    header = json.dumps({"meta": meta, "arrays": entries}).encode("utf-8")
    start = -(-(len(MAGIC) + 8 + len(header)) // _ALIGN) * _ALIGN
    digest = hashlib.sha256()
    temporary = path.with_name(path.name + ".tmp")
    try:
        with open(temporary, "wb") as handle:

            def put(data: bytes | memoryview) -> None:
                handle.write(data)
                digest.update(data)

            prefix = MAGIC + len(header).to_bytes(8, "little") + header
            put(prefix + b"\0" * (start - len(prefix)))
            for array in arrays.values():
                data = _bytes(array)
                put(data + b"\0" * (-len(data) % _ALIGN))
            handle.flush()
            os.fsync(handle.fileno())
            size = handle.tell()
        os.replace(temporary, path)
    except OSError as exc:
        temporary.unlink(missing_ok=True)
        raise IndexUnavailableError(f"cannot write {path.name}: {exc}") from exc
    return FileCheck(path.name, size, digest.hexdigest())


class ArrayFile:
    """A segment file mapped read-only, verified against its FileCheck when opened.

    *trusted*: the stamp and SHA-256 another process verified the file at; when the open
    file has that stamp and the manifest that checksum, it is not read again.
    ``verified`` is the stamp and checksum the file was verified at."""

    def __init__(self, path: Path, check: FileCheck, trusted: VerifiedFile | None = None) -> None:
        try:
            with open(path, "rb") as handle:
                st = os.fstat(handle.fileno())
                size = st.st_size
                if size != check.size:
                    raise _damage(path, f"is {size} bytes, expected {check.size}")
                self.verified: VerifiedFile = ((st.st_ino, st.st_mtime_ns, size), check.sha256)
                # Hashed by reading, not through the mapping: touching every mapped page
                # would keep the whole file resident in this process, needed or not.
                if trusted != self.verified:
                    digest = hashlib.file_digest(handle, "sha256").hexdigest()
                    if digest != check.sha256:
                        raise _damage(path, "does not match its checksum")
                self._map = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) if size else None
        except FileNotFoundError as exc:
            raise _damage(path, "is missing") from exc
        except OSError as exc:
            raise IndexUnavailableError(f"index file {check.name} cannot be read: {exc}") from exc
        data = memoryview(self._map) if self._map is not None else memoryview(b"")
        try:
            self.meta, self._entries, self._start = self._header(data, check.name)
        except IndexUnavailableError as exc:
            raise _damage(path, "has a malformed header") from exc
        self._data = data
        self._path = path

    @staticmethod
    def _header(data: memoryview, name: str) -> tuple[dict[str, Any], dict[str, Any], int]:
        if bytes(data[: len(MAGIC)]) != MAGIC:
            raise IndexUnavailableError(f"index file {name} is not an analysis segment")
        length = int.from_bytes(data[len(MAGIC) : len(MAGIC) + 8], "little")
        body = bytes(data[len(MAGIC) + 8 : len(MAGIC) + 8 + length])
        try:
            header = json.loads(body)
            meta, entries = header["meta"], header["arrays"]
        except (ValueError, KeyError, TypeError) as exc:
            raise IndexUnavailableError(f"index file {name} has a malformed header") from exc
        start = -(-(len(MAGIC) + 8 + length) // _ALIGN) * _ALIGN
        return meta, entries, start

    def has(self, name: str) -> bool:
        """Whether the file holds an array *name*."""
        return name in self._entries

    def array(self, name: str) -> npt.NDArray[Any]:
        """The array *name* (read-only, backed by the mapping); for packed ids, see
        ``column``."""
        found = self.column(name)
        assert not isinstance(found, Packed24), f"{name} is packed"
        return found

    def column(self, name: str) -> Column:
        """The array *name* (read-only, backed by the mapping), packed ids as they are."""
        dtype, count, offset = self._entries[name]
        packed = dtype == PACKED_DTYPE
        if count == 0:
            return np.zeros(0, dtype=np.uint32 if packed else np.dtype(dtype))
        start = self._start + offset
        if packed:
            if start + packed_size(count) > len(self._data):
                raise _damage(self._path, f"array {name} runs past the end of the file")
            return Packed24(self._data, count, start)
        try:
            kind = np.dtype(dtype)
        except TypeError as exc:
            raise _damage(self._path, f"array {name} has an unknown type {dtype!r}") from exc
        if start + count * kind.itemsize > len(self._data):
            raise _damage(self._path, f"array {name} runs past the end of the file")
        return np.frombuffer(self._data, dtype=kind, count=count, offset=start)

    def damaged(self, reason: str) -> IndexDamagedError:
        """The error for this file, damaged for *reason*."""
        return _damage(self._path, reason)

    def integers(self, name: str, *, signed: bool) -> npt.NDArray[Any]:
        """``array(name)``, which must hold (signed, if *signed*) integers: anything else is
        damage (DECISIONS D150: filter columns and ids are stored in narrow types)."""
        found = self.array(name)
        if found.dtype.kind not in ("i" if signed else "iu") or found.dtype.byteorder == ">":
            raise self.damaged(f"array {name} is stored as {found.dtype.str}")
        return found
