"""Stored records deflated with a dictionary per kind: training, round trips, damage."""

from __future__ import annotations

import zlib
from pathlib import Path

import pytest
from index_fixtures import meeting, wiki_page, work_package

from opindex.errors import IndexDamagedError, IndexUnavailableError
from opindex.index import TenantIndex, record_codec
from opindex.index import record_dictionary as rd
from opindex.index.record_dictionary import RecordDictionaries


def _text(i: int) -> str:
    return f"Steps to reproduce {i}: open the audit log, wait a minute, retry request {i * 7}."


def test_train_samples_evenly_and_keeps_the_last_32_kib() -> None:
    small = [b"a" * 10, b"b" * 10, b"c" * 10]
    assert rd.train(small) == b"a" * 10 + b"b" * 10 + b"c" * 10
    many = [bytes([65 + i % 26]) * 1000 for i in range(640)]  # every 10th sampled: 64
    trained = rd.train(many)
    assert len(trained) == rd.DICTIONARY_BYTES
    sampled = b"".join(many[::10][: rd.SAMPLE_RECORDS])
    assert trained == sampled[-rd.DICTIONARY_BYTES :]
    with pytest.raises(ValueError, match="at least one record"):
        rd.train([])


def test_records_round_trip_and_are_smaller_than_their_json(tmp_path: Path) -> None:
    records = [work_package(i, f"Audit log {i}", _text(i), [_text(i + 1)]) for i in range(200)]
    encoded = [record_codec.encode(r) for r in records]
    dictionaries = RecordDictionaries(tmp_path)
    chosen = dictionaries.for_batch(["work_package"] * len(encoded), encoded)
    assert (tmp_path / rd.file_name("work_package")).read_bytes() == chosen["work_package"]
    stored = rd.compress_all(["work_package"] * len(encoded), encoded, chosen)
    assert [record_codec.decode(dictionaries.decompress(s)) for s in stored] == records
    assert sum(map(len, stored)) * 3 < sum(map(len, encoded))  # a dictionary of its own kin
    plain = sum(len(zlib.compress(data)) for data in encoded)
    assert sum(map(len, stored)) < plain * 0.7  # the dictionary, not deflate, does most


def test_a_kind_keeps_the_dictionary_of_its_first_records(index_root: Path) -> None:
    index = TenantIndex.create(index_root)
    index.upsert([work_package(1, "first", _text(1)), wiki_page(5, "Runbook", _text(5))])
    index.commit()
    path = index.directory.generation_path(index.generation)
    first = (path / rd.file_name("work_package")).read_bytes()
    assert not (path / rd.file_name("meeting")).exists()
    index.upsert([work_package(i, f"later {i}", "quite different words") for i in range(2, 40)])
    index.upsert([meeting(9, "Weekly sync", ["Budget review"])])
    index.commit()
    assert (path / rd.file_name("work_package")).read_bytes() == first
    assert (path / rd.file_name("meeting")).is_file()
    reader = TenantIndex(index_root)
    assert reader.get("work_package", 1) == work_package(1, "first", _text(1))
    assert reader.get("work_package", 30) == work_package(30, "later 30", "quite different words")
    assert reader.get("meeting", 9) == meeting(9, "Weekly sync", ["Budget review"])
    index.close()


@pytest.mark.parametrize(
    "data",
    [b"", bytes([200]) + b"x", bytes([0]) + b"\xff\xff\xff not deflate", bytes([0])],
)
def test_malformed_stored_records_are_unavailable(tmp_path: Path, data: bytes) -> None:
    dictionaries = RecordDictionaries(tmp_path)
    dictionaries.ensure("work_package", [record_codec.encode(work_package(1, "one"))])
    with pytest.raises(IndexUnavailableError, match="stored record is malformed"):
        dictionaries.decompress(data)


def test_a_cut_short_record_is_unavailable(tmp_path: Path) -> None:
    dictionaries = RecordDictionaries(tmp_path)
    encoded = [record_codec.encode(work_package(1, "one", _text(1) * 20))]
    chosen = dictionaries.ensure("work_package", encoded)
    stored = rd.compress("work_package", encoded[0], chosen)
    with pytest.raises(IndexUnavailableError, match="cut short"):
        dictionaries.decompress(stored[: len(stored) // 2])


def test_a_missing_dictionary_is_damage_of_the_generation(index_root: Path) -> None:
    index = TenantIndex.create(index_root)
    index.upsert([work_package(1, "budget", _text(1))])
    index.commit()
    path = index.directory.generation_path(index.generation)
    index.close()
    (path / rd.file_name("work_package")).unlink()
    with pytest.raises(IndexDamagedError, match=r"records-work_package\.zdict"):
        TenantIndex(index_root).get("work_package", 1)


def test_an_altered_dictionary_is_damage_found_before_any_read(index_root: Path) -> None:
    index = TenantIndex.create(index_root)
    index.upsert([work_package(1, "budget", _text(1))])
    index.commit()
    path = index.directory.generation_path(index.generation)
    index.close()
    target = path / rd.file_name("work_package")
    target.write_bytes(target.read_bytes()[::-1])
    with pytest.raises(IndexDamagedError, match=r"records-work_package\.zdict"):
        TenantIndex(index_root).get("work_package", 1)


def test_a_dictionary_that_vanishes_under_a_reader_is_recorded_as_damage(tmp_path: Path) -> None:
    dictionaries = RecordDictionaries(tmp_path)
    encoded = record_codec.encode(wiki_page(3, "Runbook", _text(3)))
    stored = rd.compress("wiki_page", encoded, b"")  # as if trained elsewhere
    with pytest.raises(IndexDamagedError, match="is missing"):
        dictionaries.decompress(stored)
    assert (tmp_path / "DAMAGED").is_file()
