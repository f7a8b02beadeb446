"""merge_segments: one analysis segment per kind, the same answers, nothing lost on error."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from index_fixtures import work_package

from opindex.errors import IndexUnavailableError
from opindex.index import TenantIndex, analysis_writer, checksums
from opindex.index.analysis_store import DIRECTORY, MANIFEST
from opindex.records import Record
from opindex.search.fields import rank_documents
from opindex.search.query import parse_query

WORDS = ["budget", "approval", "aproval", "server", "deploy", "deployment", "müller", "cafe"]
QUERIES = ("budget aproval", "deploy*", "müller cafe server", '"budget approval"')


def _manifest(index: TenantIndex) -> dict[str, list[dict[str, object]]]:
    path = index.directory.generation_path(index.generation) / DIRECTORY / MANIFEST
    kinds = json.loads(path.read_text(encoding="utf-8"))["kinds"]
    return dict(kinds)


def _answers(index: TenantIndex) -> list[list[tuple[int, float]]]:
    answers = []
    for text in QUERIES:
        found, scores, total = index.ranked(parse_query(text), "work_package", limit=10_000)
        assert total == len(found)
        answers.append([(r.id, s) for r, s in zip(found, scores, strict=True)])
    return answers


def _expected(records: dict[int, Record]) -> list[list[tuple[int, float]]]:
    documents = [r.document for r in records.values()]
    return [
        [(r.record.id, r.score) for r in rank_documents(documents, parse_query(t), "work_package")]
        for t in QUERIES
    ]


def _several_segments(path: Path) -> tuple[TenantIndex, dict[int, Record]]:
    """An index whose work packages lie in four segments, with replaced and deleted ones."""
    rng = random.Random(5)
    index = TenantIndex.create(path)
    records: dict[int, Record] = {}
    for _commit in range(4):
        batch = [
            work_package(rng.randint(1, 40), *(" ".join(rng.choices(WORDS, k=3)) for _ in "ab"))
            for _ in range(8)
        ]
        index.upsert(batch)
        records.update({r.id: r for r in batch})
        gone = rng.sample(sorted(records), k=2)
        index.delete("work_package", gone)
        for record_id in gone:
            del records[record_id]
        index.commit()
    assert len(_manifest(index)["work_package"]) == 4
    return index, records


def test_merging_leaves_one_segment_per_kind_and_the_same_answers(tmp_path: Path) -> None:
    index, records = _several_segments(tmp_path / "index")
    before = _answers(index)
    assert before == _expected(records)
    opstamp = index.stats().opstamp
    assert index.merge_segments() is True
    assert [len(segments) for segments in _manifest(index).values() if segments] == [1]
    assert _answers(index) == before
    assert index.stats().opstamp == opstamp  # no Tantivy commit
    path = index.directory.generation_path(index.generation)
    checksums.verify_generation(path)  # the new manifest and segment are recorded
    reopened = TenantIndex(tmp_path / "index")
    assert _answers(reopened) == before
    assert index.merge_segments() is False  # nothing left to merge
    index.upsert([work_package(99, "budget approval")])  # the writer lock was released
    index.commit()
    records[99] = work_package(99, "budget approval")
    assert _answers(index) == _expected(records)


def test_a_merge_that_fails_leaves_the_generation_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    index, records = _several_segments(tmp_path / "index")
    before = _manifest(index)

    def full_disk(*args: object, **kwargs: object) -> None:
        raise IndexUnavailableError("no space left on device")

    monkeypatch.setattr(analysis_writer, "write_arrays", full_disk)
    with pytest.raises(IndexUnavailableError, match="no space"):
        index.merge_segments()
    monkeypatch.undo()
    assert _manifest(index) == before
    checksums.verify_generation(index.directory.generation_path(index.generation))
    assert _answers(TenantIndex(tmp_path / "index")) == _expected(records)
    assert index.merge_segments() is True  # and it can be tried again


def test_merging_is_refused_while_writes_are_pending(tmp_path: Path) -> None:
    index, _ = _several_segments(tmp_path / "index")
    index.upsert([work_package(1, "budget")])
    with pytest.raises(IndexUnavailableError, match="pending writes"):
        index.merge_segments()
    index.commit()
    assert index.merge_segments() is True
