"""A kind's analysis segments merge by size tiers: few rewrites, deletions kept (D167)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from index_fixtures import work_package

from opindex.engine import analysis_writer
from opindex.engine.analysis_store import DIRECTORY, MANIFEST, MAX_SEGMENTS
from opindex.engine.analysis_writer import newest_to_merge
from opindex.index import TenantIndex
from opindex.records import Record
from opindex.search.fields import rank_documents
from opindex.search.query import parse_query


def _segments(index: TenantIndex) -> list[str]:
    path = index.directory.generation_path(index.generation) / DIRECTORY / MANIFEST
    manifest = json.loads(path.read_text(encoding="utf-8"))
    return [entry["name"] for entry in manifest["kinds"]["work_package"]]


def _answer(index: TenantIndex, text: str) -> list[tuple[int, float]]:
    found, scores, total = index.ranked(parse_query(text), "work_package", limit=10_000)
    assert total == len(found)
    return [(r.id, s) for r, s in zip(found, scores, strict=True)]


def _expected(records: dict[int, Record], text: str) -> list[tuple[int, float]]:
    ranked = rank_documents(
        [r.document for r in records.values()], parse_query(text), "work_package"
    )
    return [(r.record.id, r.score) for r in ranked]


def test_small_commits_merge_among_themselves_and_keep_deletions_of_older_records(
    tmp_path: Path,
) -> None:
    index = TenantIndex.create(tmp_path / "index")
    records = {
        i: work_package(i, f"budget approval {i}", "server deploy " * 20) for i in range(1, 201)
    }
    index.upsert(records.values())
    index.commit()
    (large,) = _segments(index)
    merged_small = False
    for step in range(3 * MAX_SEGMENTS):
        record_id = 300 + step
        records[record_id] = work_package(record_id, "budget aproval late")
        index.upsert([records[record_id]])
        gone = 7 + step  # held by the large, older segment
        index.delete("work_package", [gone])
        del records[gone]
        if step == 5:  # deleted above, back in a newer commit
            records[9] = work_package(9, "budget approval again")
            index.upsert([records[9]])
        index.commit()
        names = _segments(index)
        assert names[0] == large  # the small commits never rewrite the large segment
        assert len(names) <= MAX_SEGMENTS
        merged_small |= len(names) < step + 2
        for text in ("budget approval", "aproval", "server"):
            assert _answer(index, text) == _expected(records, text), (step, text)
    assert merged_small  # the small segments were merged (with the deletions they name)
    reopened = TenantIndex(tmp_path / "index")
    assert _answer(reopened, "budget") == _expected(records, "budget")


def _rewritten(commits: int, policy: str) -> float:
    """Records rewritten by merges per record written, commits of equal size."""
    sizes: list[int] = []
    rewritten = 0
    for _ in range(commits):
        sizes.append(1)
        if policy == "tiers":
            merging = newest_to_merge(sizes, sys.maxsize)
        else:  # everything, past MAX_SEGMENTS
            merging = len(sizes) if len(sizes) > MAX_SEGMENTS else 0
        if merging:
            rewritten += sum(sizes[-merging:])
            sizes[-merging:] = [sum(sizes[-merging:])]
        assert len(sizes) <= MAX_SEGMENTS
    return rewritten / commits


def test_size_tiers_rewrite_a_record_a_few_times_where_merging_all_grows_with_the_tenant() -> None:
    # a full sync of 1M records in checkpoints of 500: 2,000 commits
    assert _rewritten(200, "all") > 12 and _rewritten(2000, "all") > 120
    assert _rewritten(200, "tiers") < 8 and _rewritten(2000, "tiers") < 11


def test_a_merge_stays_under_the_byte_cap_and_the_segments_grow_in_number_past_it() -> None:
    assert newest_to_merge([400, 400, 400, 100, 100], 450) == 2
    assert newest_to_merge([400] * (MAX_SEGMENTS + 2), 450) == 0  # none can merge


def test_segments_of_a_large_tenant_stop_growing_at_the_cap(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def record(record_id: int) -> Record:  # long enough for its postings to outweigh headers
        body = " ".join(f"w{record_id}x{i}" for i in range(300))
        return work_package(record_id, f"budget aproval {record_id}", f"server {body}")

    index = TenantIndex.create(tmp_path / "index")
    records = {1: record(1)}
    index.upsert([records[1]])
    index.commit()
    (first,) = _segments(index)
    root = index.directory.generation_path(index.generation) / DIRECTORY
    cap = 6 * (root / first).stat().st_size  # a few commits' worth
    monkeypatch.setattr(analysis_writer, "SEGMENT_BYTES", cap)
    for record_id in range(2, 80):
        records[record_id] = record(record_id)
        index.upsert([records[record_id]])
        index.commit()
    sizes = [(root / name).stat().st_size for name in _segments(index)]
    assert max(sizes) <= cap
    assert len(sizes) > MAX_SEGMENTS  # capped segments are not merged any more
    for text in ("budget aproval", "server", "w7x3", "w70x299"):
        assert _answer(index, text) == _expected(records, text), text
