"""The analysis store across commits: segments, merges, deletions, damage, interruptions."""

from __future__ import annotations

import json
import random
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import numpy as np
import pytest
from index_fixtures import work_package

from opindex.engine import analysis_writer
from opindex.engine.analysis_store import (
    DIRECTORY,
    MANIFEST,
    MAX_SEGMENTS,
    KindSegment,
    alive_masks,
)
from opindex.engine.analysis_writer import newest_to_merge
from opindex.engine.trigram_postings import STORED_ARRAYS
from opindex.errors import IndexUnavailableError
from opindex.index import NO_FILTERS, IndexFilters, TenantIndex
from opindex.records import Record
from opindex.search.fields import rank_documents
from opindex.search.query import parse_query

WORDS = [
    "budget",
    "approval",
    "aproval",
    "server",
    "deploy",
    "deployment",
    "decision",
    "decide",
    "müller",
    "cafe",
]


def _record(rng: random.Random, record_id: int) -> Record:
    def text() -> str:
        return " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 5)))

    return work_package(record_id, text(), text(), [text() for _ in range(rng.randint(0, 2))])


def _expected(records: dict[int, Record], text: str) -> list[tuple[int, float]]:
    ranked = rank_documents(
        [r.document for r in records.values()], parse_query(text), "work_package"
    )
    return [(r.record.id, r.score) for r in ranked]


def _got(
    index: TenantIndex, text: str, filters: IndexFilters = NO_FILTERS
) -> list[tuple[int, float]]:
    found, scores, total = index.ranked(parse_query(text), "work_package", filters, limit=10_000)
    assert total == len(found)
    return [(r.id, s) for r, s in zip(found, scores, strict=True)]


def _manifest(index: TenantIndex) -> dict[str, object]:
    path = index.directory.generation_path(index.generation) / DIRECTORY / MANIFEST
    return dict(json.loads(path.read_text(encoding="utf-8")))


def test_many_commits_merge_segments_and_keep_the_exact_answer(tmp_path: Path) -> None:
    rng = random.Random(3)
    index = TenantIndex.create(tmp_path / "index")
    records: dict[int, Record] = {}
    for commit in range(3 * MAX_SEGMENTS):
        batch = [_record(rng, rng.randint(1, 80)) for _ in range(rng.randint(1, 12))]
        index.upsert(batch)
        records.update({r.id: r for r in batch})
        gone = rng.sample(sorted(records), k=min(len(records), rng.randint(0, 3)))
        index.delete("work_package", gone)
        for record_id in gone:
            del records[record_id]
        index.commit()
        segments = _manifest(index)["kinds"]["work_package"]  # type: ignore[index]
        assert 1 <= len(segments) <= MAX_SEGMENTS, commit
        for text in ("budget aproval", "decide", "müller cafe server", "deploy*"):
            assert _got(index, text) == _expected(records, text), (commit, text)
    listed = set(_manifest(index)["garbage"])  # type: ignore[arg-type]
    on_disk = {
        p.name for p in (index.directory.generation_path(index.generation) / DIRECTORY).iterdir()
    }
    manifest = _manifest(index)
    named = {e["name"] for e in manifest["vocabulary"]}  # type: ignore[attr-defined]
    named |= {e["name"] for es in manifest["kinds"].values() for e in es}  # type: ignore[attr-defined]
    assert on_disk == named | listed | {MANIFEST}  # older garbage was removed


def test_filters_over_the_columns_agree_with_the_records(tmp_path: Path) -> None:
    index = TenantIndex.create(tmp_path / "index")
    records = [
        work_package(
            i,
            "budget review",
            project_id=1 + i % 3,
            status_id=10 + i % 2,
            is_closed=i % 2 == 1,
            assignee_id=None if i % 4 == 0 else i % 4,
        )
        for i in range(1, 25)
    ]
    index.upsert(records)
    index.commit()
    cases = [
        (IndexFilters(project_ids=(2,)), lambda r: r.project_id == 2),
        (IndexFilters(status="closed"), lambda r: r.attributes["is_closed"] is True),
        (IndexFilters(status=(10,)), lambda r: r.attributes["status_id"] == 10),
        (
            IndexFilters(assignee_ids=(None, 1)),
            lambda r: r.attributes.get("assignee_id") in (None, 1),
        ),
    ]
    for filters, keep in cases:
        expected = sorted(r.id for r in records if keep(r))
        assert sorted(i for i, _ in _got(index, "budget", filters)) == expected, filters


def test_a_damaged_segment_file_is_an_unavailable_index(tmp_path: Path) -> None:
    index = TenantIndex.create(tmp_path / "index")
    index.upsert([work_package(1, "budget")])
    index.commit()
    root = index.directory.generation_path(index.generation) / DIRECTORY
    segment = next(root.glob("work_package-*.bin"))
    data = bytearray(segment.read_bytes())
    data[len(data) // 2] ^= 0xFF
    segment.write_bytes(bytes(data))
    with pytest.raises(IndexUnavailableError, match="checksum"):
        TenantIndex(tmp_path / "index").ranked(parse_query("budget"), "work_package")


def test_a_commit_the_analysis_missed_is_an_unavailable_index(tmp_path: Path) -> None:
    index = TenantIndex.create(tmp_path / "index")
    index.upsert([work_package(1, "budget")])
    index.commit()
    generation = index.directory.generation_path(index.generation)
    kept = {
        name: (generation / name).read_bytes()
        for name in (f"{DIRECTORY}/{MANIFEST}", "checksums.json")
    }
    index.upsert([work_package(2, "budget plan")])
    index.commit()
    for name, data in kept.items():  # as if the process died right after Tantivy's commit
        (generation / name).write_bytes(data)
    reader = TenantIndex(tmp_path / "index")
    assert [r.id for r in reader.ranked(parse_query("budget"), "work_package")[0]] == [1]
    with pytest.raises(IndexUnavailableError, match="interrupted commit"):
        reader.check_complete()  # what a sync asks under the tenant lock
    with pytest.raises(IndexUnavailableError, match="interrupted commit"):
        reader.upsert([work_package(3, "budget")])  # a writer never builds on it


def test_a_commit_that_only_deletes_writes_a_segment_naming_them(tmp_path: Path) -> None:
    index = TenantIndex.create(tmp_path / "index")
    index.upsert([work_package(1, "budget"), work_package(2, "budget plan")])
    index.commit()
    index.delete("work_package", [1, 99])
    index.commit()
    assert _got(index, "budget") == [(2, 1.0)]
    assert index.candidates(parse_query("budget"), "work_package").total == 1


def test_token_ids_past_the_narrow_types_are_found_and_merged(tmp_path: Path) -> None:
    index = TenantIndex.create(tmp_path / "index")
    many = " ".join(f"w{i}" for i in range(70_000))  # token ids beyond uint16
    index.upsert([work_package(1, "budget", many)])
    index.commit()
    records: dict[int, Record] = {1: work_package(1, "budget", many)}
    for record_id in range(2, 2 + MAX_SEGMENTS + 1):  # enough commits to merge
        record = work_package(record_id, f"w69999 late{record_id} budget")
        index.upsert([record])
        index.commit()
        records[record_id] = record
    for text in ("w69999", "late5", "budget w3", "w12"):
        assert _got(index, text) == _expected(records, text), text


def _stored_dtypes(segment: Path) -> dict[str, str]:
    data = segment.read_bytes()
    length = int.from_bytes(data[8:16], "little")
    header = json.loads(data[16 : 16 + length])
    return {name: entry[0] for name, entry in header["arrays"].items()}


def test_wide_token_ids_and_value_positions_are_stored_narrow(tmp_path: Path) -> None:
    # DECISIONS D178: token ids are varint-coded in the value's stream (ids past 2**14
    # take 3 bytes); D179: value positions past uint16 are packed, 3 bytes each; D181: a
    # vocabulary slice stores no token bounds (its text has them), and a segment holding
    # most of the vocabulary's ids stores them as a bitmap, one holding a few as a list.
    index = TenantIndex.create(tmp_path / "index")
    many = " ".join(f"w{i}" for i in range(70_000))
    notes = [f"note {i} budget" for i in range(66_000)]
    records = {
        1: work_package(1, "budget", many, notes),
        2: work_package(2, "w69999 w3 budget"),
    }
    index.upsert(records.values())
    index.commit()
    root = index.directory.generation_path(index.generation) / DIRECTORY
    segment = next(root.glob("work_package-*.bin"))
    stored = _stored_dtypes(segment)
    assert (stored["stream"], stored["posting_values"]) == ("|u1", "<u3")
    assert stored["token_words"] == "<u8" and "posting_tokens" not in stored
    vocabulary = _stored_dtypes(next(root.glob("vocabulary-*.bin")))
    assert set(vocabulary) == {"text", *STORED_ARRAYS}
    assert vocabulary["deflated"] == "|u1"  # 70k tokens: every list short enough (D185)
    records[3] = work_package(3, "w5 budget w69998")  # a segment of three token ids
    index.upsert([records[3]])
    index.commit()
    small = [_stored_dtypes(path) for path in root.glob("work_package-*.bin")]
    assert sorted("token_words" in found for found in small) == [False, True]
    assert [found["posting_tokens"] for found in small if "posting_tokens" in found] == ["<u4"]
    reader = TenantIndex(tmp_path / "index")
    for text in ('"w69999 w3"', "w69999", '"w68000 w68001"', "w12", "w5 budget", "w69998"):
        found, scores, _ = reader.ranked(parse_query(text), "work_package", limit=10_000)
        assert [(r.id, s) for r, s in zip(found, scores, strict=True)] == _expected(
            records, text
        ), text


def test_the_newest_vocabulary_slices_merge_by_size_tiers() -> None:
    assert newest_to_merge([]) == 0
    assert newest_to_merge([100]) == 0
    assert newest_to_merge([1_000, 10]) == 0  # far smaller than the slice before it
    assert newest_to_merge([1_000, 250]) == 2  # a quarter of it: merged
    assert newest_to_merge([1_000, 100, 30]) == 2  # 30 and 100 merge; 130 stays apart
    assert newest_to_merge([2_000, 200, 30, 30]) == 3  # 30 + 30 = 60 reaches 200 / 4
    assert newest_to_merge([400, 200, 30, 30]) == 4  # then 260 reaches 400 / 4 too
    assert newest_to_merge([10**6] * (MAX_SEGMENTS + 1)) == MAX_SEGMENTS + 1
    # past MAX_SEGMENTS slices the newest merge whatever their sizes, until few enough
    assert newest_to_merge([10**9, *[10**6] * (MAX_SEGMENTS - 1), 1]) == MAX_SEGMENTS
    assert newest_to_merge([10, 10], most=15) == 0  # a merged slice must fit
    assert newest_to_merge([5, 5, 5], most=12) == 2


def test_a_commit_with_more_new_tokens_than_a_slice_holds_writes_several(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(analysis_writer, "SLICE_TOKENS", 4)
    index = TenantIndex.create(tmp_path / "index")
    records = {1: work_package(1, "alpha beta gamma delta epsilon zeta eta theta iota kappa")}
    index.upsert(records.values())
    index.commit()
    counts = [int(e["count"]) for e in _manifest(index)["vocabulary"]]  # type: ignore[attr-defined]
    assert max(counts) <= 4 and sum(counts) >= 10, counts
    records[2] = work_package(2, "lambda alpha kapa")
    index.upsert([records[2]])
    index.commit()
    for text in ("alpha", "kappa", "zeta theta", "lambda", "gama"):
        assert _got(index, text) == _expected(records, text), text


def test_vocabulary_slices_stay_few_over_many_commits(tmp_path: Path) -> None:
    rng = random.Random(5)
    index = TenantIndex.create(tmp_path / "index")
    records: dict[int, Record] = {}
    for commit in range(40):
        batch = [
            work_package(rng.randint(1, 400), f"budget t{commit}x{i} " * rng.randint(1, 3))
            for i in range(rng.choice([1, 5, 60]))
        ]
        index.upsert(batch)
        records.update({r.id: r for r in batch})
        index.commit()
        counts = [int(e["count"]) for e in _manifest(index)["vocabulary"]]  # type: ignore[attr-defined]
        assert newest_to_merge(counts) == 0, (commit, counts)  # nothing left to merge
        bases = [int(e["base"]) for e in _manifest(index)["vocabulary"]]  # type: ignore[attr-defined]
        assert bases == [sum(counts[:i]) for i in range(len(counts))], (commit, counts)
        assert len(counts) <= MAX_SEGMENTS
    for text in ("budget", "t3x0", "t39x2 budget", "t1*"):
        assert _got(index, text) == _expected(records, text), text


def test_a_record_is_alive_unless_a_newer_segment_holds_or_deletes_its_id() -> None:
    rng = random.Random(11)
    for _ in range(300):
        segments: list[Any] = []
        for _ in range(rng.randint(1, MAX_SEGMENTS + 1)):
            ids = sorted(rng.sample(range(1, 80), rng.randint(0, 30)))
            deleted = sorted(rng.sample(range(1, 80), rng.randint(0, 10)))
            narrow = rng.choice([np.uint8, np.uint16, np.uint32])
            segments.append(
                SimpleNamespace(ids=np.array(ids, narrow), deleted=np.array(deleted, np.int64))
            )
        masks = alive_masks(cast(list[KindSegment], segments))
        for position, (segment, mask) in enumerate(zip(segments, masks, strict=True)):
            newer = {int(i) for later in segments[position + 1 :] for i in later.ids}
            newer |= {int(i) for later in segments[position + 1 :] for i in later.deleted}
            assert mask.tolist() == [int(i) not in newer for i in segment.ids]
