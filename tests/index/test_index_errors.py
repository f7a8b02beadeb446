"""Clear errors for a busy writer, a foreign schema version, and missing or corrupt files."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from index_fixtures import work_package

from opindex.errors import (
    IndexDamagedError,
    IndexNeedsRebuildError,
    IndexUnavailableError,
    SyncInProgressError,
)
from opindex.index import SCHEMA_VERSION, TenantIndex, checksums, record_codec
from opindex.index.schema import VERSION_FILE
from opindex.search.query import parse_query


def _filled(root: Path) -> TenantIndex:
    index = TenantIndex.create(root)
    index.upsert([work_package(i, f"budget {i}", "some description text") for i in range(20)])
    index.commit()
    return index


def _live_path(index: TenantIndex) -> Path:
    return index.directory.generation_path(index.generation)


def test_a_second_writer_in_the_same_process_is_refused(index_root: Path) -> None:
    first = _filled(index_root)
    second = TenantIndex(index_root)
    first.upsert([work_package(100, "pending")])
    with pytest.raises(SyncInProgressError, match="another sync or rebuild"):
        second.upsert([work_package(101, "other")])
    # Reads are not blocked by the writer, and nothing was lost.
    assert second.count("work_package") == 20
    first.commit()  # releases the lock
    second.upsert([work_package(101, "other")])
    second.commit()
    assert first.all_ids("work_package")[-2:] == [100, 101]


def test_a_writer_in_another_process_is_reported_and_its_death_frees_the_lock(
    index_root: Path,
) -> None:
    index = _filled(index_root)
    holder = textwrap.dedent(
        f"""
        import sys
        from opindex.index import TenantIndex
        index = TenantIndex({str(index_root)!r})
        index.delete("work_package", [0])  # opens the writer
        print("holding", flush=True)
        sys.stdin.readline()
        """
    )
    process = subprocess.Popen(
        [sys.executable, "-c", holder], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert process.stdout is not None
        assert process.stdout.readline().strip() == "holding"
        with pytest.raises(SyncInProgressError):
            index.upsert([work_package(50, "x")])
    finally:
        process.kill()
        process.wait()
    index.upsert([work_package(50, "x")])
    index.commit()
    assert index.count("work_package") == 21  # the killed writer's delete never landed


def test_another_schema_version_needs_a_rebuild(index_root: Path) -> None:
    path = _live_path(_filled(index_root))
    (path / VERSION_FILE).write_text(json.dumps({"schema_version": SCHEMA_VERSION + 1}))
    checksums.record(path)  # as another version of opindex would have committed it
    with pytest.raises(IndexNeedsRebuildError, match="needs a rebuild") as caught:
        TenantIndex(index_root).count("work_package")
    assert caught.value.found_version == SCHEMA_VERSION + 1


def test_other_searchable_fields_need_a_rebuild(index_root: Path) -> None:
    path = _live_path(_filled(index_root))
    marker = json.loads((path / VERSION_FILE).read_text())
    marker["fields"]["work_package"] = ["subject"]
    (path / VERSION_FILE).write_text(json.dumps(marker))
    checksums.record(path)  # as another version of opindex would have committed it
    with pytest.raises(IndexNeedsRebuildError, match="rebuild"):
        TenantIndex(index_root).get("work_package", 1)


def test_another_tokenizer_needs_a_rebuild(index_root: Path) -> None:
    path = _live_path(_filled(index_root))
    marker = json.loads((path / VERSION_FILE).read_text())
    marker["tokenizer"] = "0123456789abcdef"  # as written by a tokenizer that folds otherwise
    (path / VERSION_FILE).write_text(json.dumps(marker))
    checksums.record(path)  # as another version of opindex would have committed it
    with pytest.raises(IndexNeedsRebuildError, match="tokenizer"):
        TenantIndex(index_root).get("work_package", 1)


def test_missing_version_marker_is_unavailable(index_root: Path) -> None:
    path = _live_path(_filled(index_root))
    (path / VERSION_FILE).unlink()
    with pytest.raises(IndexUnavailableError, match=VERSION_FILE):
        TenantIndex(index_root).count("work_package")


def test_never_built_index_is_unavailable(index_root: Path) -> None:
    with pytest.raises(IndexUnavailableError, match="never built"):
        TenantIndex(index_root).candidates(parse_query("budget"), "work_package")


def test_pointer_to_a_missing_generation_is_unavailable(index_root: Path) -> None:
    index = _filled(index_root)
    (index_root / "CURRENT").write_text("g000042\n")
    with pytest.raises(IndexUnavailableError):
        TenantIndex(index_root).count("work_package")
    (index_root / "CURRENT").write_text("../../etc\n")
    with pytest.raises(IndexUnavailableError, match="names no generation"):
        index.count("work_package")


def test_garbled_meta_json_is_unavailable(index_root: Path) -> None:
    path = _live_path(_filled(index_root))
    (path / "meta.json").write_text("{")
    with pytest.raises(IndexDamagedError, match=r"meta\.json does not parse"):
        TenantIndex(index_root).count("work_package")


def test_missing_meta_json_is_unavailable_for_an_open_reader(index_root: Path) -> None:
    index = _filled(index_root)
    (_live_path(index) / "meta.json").unlink()
    with pytest.raises(IndexUnavailableError, match=r"meta\.json"):
        index.count("work_package")


def test_missing_segment_file_is_unavailable(index_root: Path) -> None:
    path = _live_path(_filled(index_root))
    next(path.glob("*.idx")).unlink()
    with pytest.raises(IndexUnavailableError):
        TenantIndex(index_root).count("work_package")


@pytest.mark.parametrize("suffix", [".store", ".term", ".fast"])
def test_truncated_segment_file_is_unavailable_not_a_crash(index_root: Path, suffix: str) -> None:
    # Tantivy panics on some truncated files; the panic must surface as our error.
    path = _live_path(_filled(index_root))
    next(path.glob(f"*{suffix}")).write_bytes(b"garbage")
    with pytest.raises(IndexUnavailableError):
        reader = TenantIndex(index_root)
        reader.candidates(parse_query("budget"), "work_package")
        reader.get("work_package", 1)


def test_stored_record_round_trips_and_malformed_bytes_are_unavailable() -> None:
    record = work_package(7, "Müller's budget", "naïve café ½ 😀")
    assert record_codec.decode(record_codec.encode(record)) == record
    good = record_codec.encode(record)
    broken = [
        b"\xff\xfe not utf-8",
        b"{not json",
        good.replace(b'"kind"', b'"sort"'),
        good.replace(b'"work_package"', b'"ticket"'),
        b'{"kind":"work_package","id":1,"fields":{"subject":[["one"]]}}',
    ]
    for data in broken:
        with pytest.raises(IndexUnavailableError, match="stored record is malformed"):
            record_codec.decode(data)
