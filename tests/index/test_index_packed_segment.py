"""Segment files holding packed ids (DECISIONS D138): read back, and a header that
claims more packed values than the file holds is damage, not a read past the end."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest

from opindex.engine.analysis_segment import MAGIC, ArrayFile, FileCheck, write_arrays
from opindex.engine.packed import DTYPE as PACKED_DTYPE
from opindex.engine.packed import Packed24
from opindex.errors import IndexDamagedError


def _segment(tmp_path: Path) -> tuple[Path, FileCheck, np.ndarray]:
    root = tmp_path / "g000001" / "analysis"
    root.mkdir(parents=True)
    values = np.array([70_000, 5, (1 << 24) - 1, 0, 123_456], dtype=np.uint32)
    arrays = {"ids": np.arange(3, dtype=np.int64), "tokens": Packed24.of(values)}
    check = write_arrays(root / "work_package-000001.bin", arrays, {"kind": "work_package"})
    return root / check.name, check, values


def test_packed_ids_are_written_and_mapped_back(tmp_path: Path) -> None:
    path, check, values = _segment(tmp_path)
    mapped = ArrayFile(path, check)
    tokens = mapped.column("tokens")
    assert isinstance(tokens, Packed24)
    assert tokens[np.arange(len(values))].tolist() == values.tolist()
    assert mapped.array("ids").tolist() == [0, 1, 2]


def test_a_header_claiming_more_packed_ids_than_the_file_holds_is_damage(
    tmp_path: Path,
) -> None:
    path, _, values = _segment(tmp_path)
    data = bytearray(path.read_bytes())
    length = int.from_bytes(data[len(MAGIC) : len(MAGIC) + 8], "little")
    start = len(MAGIC) + 8
    header = json.loads(data[start : start + length])
    assert header["arrays"]["tokens"][:2] == [PACKED_DTYPE, len(values)]
    header["arrays"]["tokens"][1] = 1_000  # 3,001 bytes: past the file's end
    body = json.dumps(header, separators=(",", ":")).encode("utf-8")  # no longer than before
    assert len(body) <= length
    data[start : start + length] = body.ljust(length)
    path.write_bytes(bytes(data))
    check = FileCheck(path.name, len(data), hashlib.sha256(bytes(data)).hexdigest())
    with pytest.raises(IndexDamagedError, match="runs past the end"):
        ArrayFile(path, check).column("tokens")
