"""checksums.record reads only the files whose stamp changed since it last hashed them."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from opindex.errors import IndexDamagedError
from opindex.index import checksums
from opindex.index.checksums import VerifiedFile


def _generation(path: Path) -> Path:
    path.mkdir()
    for name, data in {
        "a.store": b"alpha" * 100,
        "b.idx": b"beta",
        "meta.json": b'{"opstamp": 3}',
    }.items():
        (path / name).write_bytes(data)
    old = time.time() - 60  # settled: written a minute ago
    for name in ("a.store", "b.idx", "meta.json"):
        os.utime(path / name, (old, old))
    return path


def _reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    read: list[str] = []
    real = checksums.file_digest

    def counted(path: Path, *args: object, **kwargs: object) -> str:
        read.append(path.name)
        return real(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(checksums, "file_digest", counted)
    return read


def test_unchanged_files_are_not_read_again_and_changed_ones_are(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _generation(tmp_path / "g1")
    read = _reads(monkeypatch)
    hashed: dict[str, VerifiedFile] = {}
    first = checksums.record(path, hashed)
    assert sorted(read) == ["a.store", "b.idx", "meta.json"]
    read.clear()
    assert checksums.record(path, hashed) == first and read == []
    (path / "b.idx").write_bytes(b"BETA")  # same size, new mtime: read again
    (path / "c.pos").write_bytes(b"new")
    again = checksums.record(path, hashed)
    assert sorted(read) == ["b.idx", "c.pos"]
    assert again == checksums.record(path)  # what a record from scratch says
    assert again.files["b.idx"] != first.files["b.idx"]
    assert "b.idx" not in hashed and "a.store" in hashed  # just written: not remembered
    checksums.verify_generation(path)


def test_a_file_damaged_in_place_keeps_its_recorded_checksum_and_is_found(
    tmp_path: Path,
) -> None:
    path = _generation(tmp_path / "g1")
    hashed: dict[str, VerifiedFile] = {}
    checksums.record(path, hashed)
    stat = os.stat(path / "a.store")
    with open(path / "a.store", "r+b") as handle:  # bit rot: content changes, stamp kept
        handle.write(b"X")
    os.utime(path / "a.store", ns=(stat.st_atime_ns, stat.st_mtime_ns))
    checksums.record(path, hashed)  # a later commit does not bless the damage
    with pytest.raises(IndexDamagedError) as found:
        checksums.verify_generation(path)
    assert found.value.file == "a.store"
