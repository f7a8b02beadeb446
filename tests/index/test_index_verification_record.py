"""A generation's verification is remembered for an hour across processes (DECISIONS D158).

Each test opens the generation with a fresh ``GenerationIndex``, as another process
would, at a time its clock gives. Damage is written in place (same length, so only the
file's checksum can tell) and the file's modification time put back where it was: the
one change a stamp cannot see, trusted within the hour and found after it.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from index_fixtures import work_package

from opindex.engine.analysis_segment import ArrayFile, FileCheck
from opindex.engine.analysis_store import DIRECTORY
from opindex.errors import IndexDamagedError
from opindex.index import TenantIndex, checksums
from opindex.index.generation_index import GenerationIndex
from opindex.index.verification_record import (
    RACY_SECONDS,
    VERIFY_INTERVAL_SECONDS,
    read_record,
    record_path,
)

T0 = 1_800_000_000.0
"""The time of the first open; the fixture's files were last written ten minutes before."""
HOUR = float(VERIFY_INTERVAL_SECONDS)


@pytest.fixture
def generation(index_root: Path) -> Iterator[tuple[str, Path]]:
    """The live generation of a filled tenant index, its files last written long before
    T0 (the clock of these tests)."""
    index = TenantIndex.create(index_root)
    index.upsert([work_package(i, f"budget {i}", "some description text") for i in range(40)])
    index.commit()
    name = index.generation
    index.close()
    path = index.directory.generation_path(name)
    shutil.rmtree(path / "verified", ignore_errors=True)  # what the writer's own open kept
    for file in path.rglob("*"):
        if file.is_file():
            os.utime(file, (T0 - 600, T0 - 600))
    yield name, path


def _open(generation: tuple[str, Path], at: float) -> GenerationIndex:
    name, path = generation
    return GenerationIndex(name, path, clock=lambda: at)


def _damage_in_place(file: Path, *, keep_mtime: bool) -> None:
    """Same-length garbage in the middle of *file*; its mtime put back if *keep_mtime*."""
    st = file.stat()
    middle = st.st_size // 2
    with open(file, "r+b") as handle:
        handle.seek(middle)
        original = handle.read(16)
        assert original, "the file is too small to damage"
        handle.seek(middle)
        handle.write(bytes(b ^ 0xFF for b in original))
    if keep_mtime:
        os.utime(file, ns=(st.st_atime_ns, st.st_mtime_ns))
    after = file.stat()
    assert (after.st_ino, after.st_size) == (st.st_ino, st.st_size)


def _store_file(path: Path) -> Path:
    return max(path.glob("*.store"), key=lambda p: p.stat().st_size)


def _kind_segment(path: Path) -> Path:
    return next((path / DIRECTORY).glob("work_package-*.bin"))


PickFile = Callable[[Path], Path]
DAMAGED_FILES = pytest.mark.parametrize(
    "damaged", [_store_file, _kind_segment], ids=["tantivy", "analysis"]
)


def test_the_first_open_records_every_file_it_verified(generation: tuple[str, Path]) -> None:
    _, path = generation
    _open(generation, T0)
    record = read_record(path, T0 + 1)
    assert record is not None and record.verified_at == T0
    covered = checksums.read(path)
    assert covered is not None
    expected = {
        name: digest
        for name, (_, digest) in covered.files.items()
        if name != ".managed.json"  # only checked to exist
    }
    manifest = json.loads((path / DIRECTORY / "manifest.json").read_text(encoding="utf-8"))
    entries = [*manifest["vocabulary"], *(e for k in manifest["kinds"].values() for e in k)]
    expected |= {f"{DIRECTORY}/{e['name']}": e["sha256"] for e in entries}
    assert {name: digest for name, (_, digest) in record.files.items()} == expected
    for name, (stamp, _) in record.files.items():
        st = (path / name).stat()
        assert stamp == (st.st_ino, st.st_mtime_ns, st.st_size)


@DAMAGED_FILES
def test_an_unchanged_stamp_is_trusted_within_the_hour_and_read_again_after_it(
    generation: tuple[str, Path], damaged: PickFile
) -> None:
    _, path = generation
    _open(generation, T0)
    file = damaged(path)
    _damage_in_place(file, keep_mtime=True)
    _open(generation, T0 + HOUR - 1)  # trusted: the accepted exposure, as a server reader's
    assert not (path / checksums.DAMAGE_FILE).exists()
    with pytest.raises(IndexDamagedError) as found:
        _open(generation, T0 + HOUR)
    assert found.value.file is not None and found.value.file.endswith(file.name)
    assert (path / checksums.DAMAGE_FILE).exists()
    with pytest.raises(IndexDamagedError):  # the mark wins over any record from now on
        _open(generation, T0 + 1)


def test_a_later_open_keeps_the_time_of_the_oldest_verification(
    generation: tuple[str, Path],
) -> None:
    _, path = generation
    _open(generation, T0)
    meta = path / "meta.json"
    meta.write_bytes(meta.read_bytes())  # a new stamp: read again at the next open
    os.utime(meta, (T0 - 60, T0 - 60))
    _open(generation, T0 + 1800)
    record = read_record(path, T0 + 1800)
    assert record is not None and record.verified_at == T0
    assert record.files["meta.json"][0][1] == int((T0 - 60) * 1e9)


@DAMAGED_FILES
@pytest.mark.parametrize("how", ["written", "replaced"])
def test_a_changed_stamp_is_read_again_and_the_damage_found(
    generation: tuple[str, Path], damaged: PickFile, how: str
) -> None:
    _, path = generation
    _open(generation, T0)
    file = damaged(path)
    if how == "written":  # the write moves the mtime (to now, long after T0 - 600)
        _damage_in_place(file, keep_mtime=False)
    else:  # a copy put in its place: same mtime and size, another inode
        st = file.stat()
        copy = file.with_name(file.name + ".copy")
        shutil.copy2(file, copy)
        _damage_in_place(copy, keep_mtime=True)
        os.replace(copy, file)
        assert (file.stat().st_mtime_ns, file.stat().st_size) == (st.st_mtime_ns, st.st_size)
    with pytest.raises(IndexDamagedError) as found:
        _open(generation, T0 + 60)
    assert found.value.file is not None and found.value.file.endswith(file.name)


def _record_text(path: Path) -> str:
    return record_path(path).read_text(encoding="utf-8")


def _rewritten(text: str, **changes: object) -> str:
    data = json.loads(text)
    data.update(changes)
    return json.dumps(data)


@pytest.mark.parametrize(
    "spoil",
    [
        lambda text: "",
        lambda text: text[: len(text) // 2],
        lambda text: "[1, 2, 3]",
        lambda text: _rewritten(text, format=2),
        lambda text: _rewritten(text, verified_at="yesterday"),
        lambda text: _rewritten(text, verified_at=T0 + 120),  # dated after the open
        lambda text: _rewritten(text, verified_at=T0 - HOUR),  # too old
        lambda text: _rewritten(text, files={"meta.json": [1, 2]}),
        lambda text: _rewritten(text, files={"meta.json": ["1", 2, 3, "x"]}),
        lambda text: _rewritten(text, files=[]),
    ],
    ids=[
        "empty",
        "torn",
        "a list",
        "another format",
        "a time that is no number",
        "from the future",
        "an hour old",
        "a short entry",
        "an entry of strings",
        "files not a table",
    ],
)
def test_a_malformed_or_old_record_is_ignored(
    generation: tuple[str, Path], spoil: Callable[[str], str]
) -> None:
    _, path = generation
    _open(generation, T0)
    record_path(path).write_text(spoil(_record_text(path)), encoding="utf-8")
    _damage_in_place(_store_file(path), keep_mtime=True)
    with pytest.raises(IndexDamagedError):
        _open(generation, T0 + 60)


def test_a_file_whose_checksum_changed_is_not_trusted(generation: tuple[str, Path]) -> None:
    _, path = generation
    _open(generation, T0)
    segment = _kind_segment(path)
    record = read_record(path, T0 + 1)
    assert record is not None
    trusted = record.files[f"{DIRECTORY}/{segment.name}"]
    size = segment.stat().st_size
    ArrayFile(segment, FileCheck(segment.name, size, trusted[1]), trusted)
    with pytest.raises(IndexDamagedError, match="does not match its checksum"):
        ArrayFile(segment, FileCheck(segment.name, size, "0" * 64), trusted)


def test_files_written_just_before_the_verification_are_not_recorded(
    generation: tuple[str, Path],
) -> None:
    _, path = generation
    fresh = _store_file(path)
    os.utime(fresh, (T0 - RACY_SECONDS / 2, T0 - RACY_SECONDS / 2))
    _open(generation, T0)
    record = read_record(path, T0 + 1)
    assert record is not None and fresh.name not in record.files
    assert "meta.json" in record.files
    _damage_in_place(fresh, keep_mtime=True)  # a second write in the same timestamp tick
    with pytest.raises(IndexDamagedError):
        _open(generation, T0 + 60)


def test_the_record_is_no_file_the_checksums_cover(generation: tuple[str, Path]) -> None:
    _, path = generation
    _open(generation, T0)
    index = TenantIndex(path.parent)
    index.upsert([work_package(99, "another budget")])
    index.commit()
    index.close()
    covered = checksums.read(path)
    assert covered is not None
    assert record_path(path).is_file()
    assert not [n for n in covered.files if n.startswith("verified")]
    record_path(path).write_text("garbage", encoding="utf-8")
    _open(generation, T0 + 60)  # reads everything again, finds nothing


def test_a_directory_that_cannot_hold_the_record_still_opens(
    generation: tuple[str, Path],
) -> None:
    _, path = generation
    (path / "verified").write_text("a file where the record's directory would be")
    _open(generation, T0)
    _open(generation, T0 + 60)
    assert read_record(path, T0 + 60) is None
    assert not list(path.glob("verified*.tmp")) and not list(path.rglob("*.tmp"))


def test_verification_counts_the_files_it_trusted(generation: tuple[str, Path]) -> None:
    _, path = generation
    first = checksums.verify_generation(path)
    assert first.files > 0 and first.trusted == 0
    again = checksums.verify_generation(path, trusted=first.verified)
    assert (again.files, again.bytes, again.trusted) == (0, 0, first.files)
    assert again.verified == first.verified
    other_checksums = {name: (stamp, "0" * 64) for name, (stamp, _) in first.verified.items()}
    spoiled = checksums.verify_generation(path, trusted=other_checksums)
    assert (spoiled.files, spoiled.trusted) == (first.files, 0)
