"""The on-disk vector file: int8 chunk vectors with per-record ranges, checksummed, mmap-read.

Layout (little-endian)::

    magic  b"OPIXVEC1"
    u32    length of the header JSON
    header JSON {"format": 1, "model": ID, "chunking": N, "dimension": D,
                 "records": R, "chunks": C, "sha256": HEX of the body}
    zero padding to a multiple of 64
    body: keys     int64[R]   (kind code << 48 | record id), ascending
          starts   int64[R+1] (record r owns chunks starts[r] .. starts[r+1]-1, never none)
          scales   float32[C] (chunk vector ≈ scale × int8 row)
          refs     int64[C]   (sub-record id, -1 when none)
          parts    uint8[C]   (chunk part code)
          vectors  int8[C×D]
    each array starting at a multiple of 64 bytes of the body.
"""

from __future__ import annotations

import hashlib
import json
import os
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from opindex.errors import IndexDamagedError, VectorModelMismatchError

MAGIC = b"OPIXVEC1"
FORMAT = 1
ALIGN = 64
KIND_SHIFT = 48
ID_LIMIT = 1 << KIND_SHIFT
_LENGTH = struct.Struct("<I")
_MAX_HEADER = 1 << 16


@dataclass(frozen=True, slots=True)
class VectorArrays:
    """The arrays of one vector file (in memory, or memory-mapped views of the file)."""

    keys: NDArray[np.int64]
    starts: NDArray[np.int64]
    scales: NDArray[np.float32]
    refs: NDArray[np.int64]
    parts: NDArray[np.uint8]
    vectors: NDArray[np.int8]


def _layout(records: int, chunks: int, dimension: int) -> list[tuple[str, Any, tuple[int, ...]]]:
    return [
        ("keys", np.int64, (records,)),
        ("starts", np.int64, (records + 1,)),
        ("scales", np.float32, (chunks,)),
        ("refs", np.int64, (chunks,)),
        ("parts", np.uint8, (chunks,)),
        ("vectors", np.int8, (chunks, dimension)),
    ]


def _padded(size: int) -> int:
    return -(-size // ALIGN) * ALIGN


def write_vector_file(path: Path, arrays: VectorArrays, *, model: str, chunking: int) -> None:
    """Write *arrays* to *path* atomically (a temporary file, fsynced, then renamed)."""
    records, chunks = len(arrays.keys), len(arrays.scales)
    dimension = int(arrays.vectors.shape[1])
    body = bytearray()
    for name, dtype, shape in _layout(records, chunks, dimension):
        array = np.ascontiguousarray(getattr(arrays, name), dtype=np.dtype(dtype).newbyteorder("<"))
        if array.shape != shape:
            raise ValueError(f"{name}: shape {array.shape}, expected {shape}")
        body += array.tobytes()
        body += bytes(_padded(len(body)) - len(body))
    header = {
        "format": FORMAT,
        "model": model,
        "chunking": chunking,
        "dimension": dimension,
        "records": records,
        "chunks": chunks,
        "sha256": hashlib.sha256(body).hexdigest(),
    }
    head = json.dumps(header, sort_keys=True).encode()
    prefix = MAGIC + _LENGTH.pack(len(head)) + head
    prefix += bytes(_padded(len(prefix)) - len(prefix))
    temporary = path.with_name(f".{path.name}.tmp")
    with temporary.open("wb") as handle:
        handle.write(prefix)
        handle.write(body)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temporary, path)
    directory = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(directory)
    finally:
        os.close(directory)


def read_vector_file(
    path: Path,
    *,
    model: str | None = None,
    chunking: int | None = None,
    verify: bool = True,
) -> tuple[dict[str, Any], VectorArrays]:
    """The header and memory-mapped arrays of the file at *path*.

    IndexDamagedError if the file is truncated, malformed or (with *verify*) fails its
    checksum; VectorModelMismatchError if *model* or *chunking* is given and differs.
    """

    def damaged(reason: str) -> IndexDamagedError:
        return IndexDamagedError(
            f"vector file {path.name} of {path.parent.name} is damaged: {reason}",
            generation=path.parent.name,
            file=path.name,
            reason=reason,
        )

    try:
        size = path.stat().st_size
        with path.open("rb") as handle:
            start = handle.read(len(MAGIC) + _LENGTH.size)
            if len(start) < len(MAGIC) + _LENGTH.size or start[: len(MAGIC)] != MAGIC:
                raise damaged("not a vector file (bad magic)")
            (length,) = _LENGTH.unpack(start[len(MAGIC) :])
            if length > _MAX_HEADER:
                raise damaged("header too long")
            header = json.loads(handle.read(length))
    except FileNotFoundError as exc:
        raise damaged("missing") from exc
    except (OSError, ValueError, struct.error) as exc:
        raise damaged(f"unreadable header ({type(exc).__name__})") from exc
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise damaged(
            f"unknown format {header.get('format') if isinstance(header, dict) else None!r}"
        )
    if model is not None and header.get("model") != model:
        raise VectorModelMismatchError(
            f"the vectors in {path.parent.name} were made by {header.get('model')!r}, not the"
            f" configured {model!r}: rebuild the index to re-embed"
        )
    if chunking is not None and header.get("chunking") != chunking:
        raise VectorModelMismatchError(
            f"the vectors in {path.parent.name} were chunked by version"
            f" {header.get('chunking')!r}, not {chunking}: rebuild the index to re-embed"
        )
    try:
        records, chunks = int(header["records"]), int(header["chunks"])
        dimension = int(header["dimension"])
        digest = str(header["sha256"])
    except (KeyError, TypeError, ValueError) as exc:
        raise damaged("incomplete header") from exc
    offset = _padded(len(MAGIC) + _LENGTH.size + length)
    layout = _layout(records, chunks, dimension)
    body_size = 0
    for _name, dtype, shape in layout:
        body_size = _padded(body_size + int(np.prod(shape)) * np.dtype(dtype).itemsize)
    if records < 0 or chunks < 0 or dimension < 1 or size != offset + body_size:
        raise damaged(f"size {size} does not match its header")
    body = np.memmap(path, dtype=np.uint8, mode="r", offset=offset, shape=(body_size,))
    if verify and hashlib.sha256(body.data).hexdigest() != digest:
        raise damaged("checksum mismatch")
    views: dict[str, Any] = {}
    position = 0
    for name, dtype, shape in layout:
        count = int(np.prod(shape))
        views[name] = np.frombuffer(
            body, dtype=np.dtype(dtype).newbyteorder("<"), count=count, offset=position
        ).reshape(shape)
        position = _padded(position + count * np.dtype(dtype).itemsize)
    arrays = VectorArrays(**views)
    if arrays.starts[0] != 0 or arrays.starts[-1] != chunks or (np.diff(arrays.starts) < 1).any():
        raise damaged("record chunk ranges are inconsistent")
    if records > 1 and (np.diff(arrays.keys) <= 0).any():
        raise damaged("record keys are not ascending")
    return header, arrays
