"""Compaction: the records of several commits rewritten into one segment, answers unchanged."""

from __future__ import annotations

import pytest
from index_fixtures import meeting, wiki_page, work_package

from opindex.errors import IndexUnavailableError
from opindex.index import TenantIndex, compacted
from opindex.search.document import KINDS
from opindex.search.query import parse_query

QUERIES = ("budget", "budgte aproval", "standup hiring", "release notes", '"sign-off"')


def _answers(index: TenantIndex) -> dict[tuple[str, str], tuple[list[int], list[float], int]]:
    found = {}
    for kind in KINDS:
        for text in QUERIES:
            query = parse_query(text)
            if query.containment or not query.terms:
                continue
            records, scores, total = index.ranked(query, kind, limit=50)
            found[(kind, text)] = ([r.id for r in records], scores, total)
    return found


def _commit_in_batches(index: TenantIndex) -> None:
    for batch in range(4):
        index.upsert(
            work_package(
                batch * 10 + n,
                f"Budget approval {batch} {n}",
                "Needs sign-off before the release notes",
                [f"comment {n}"],
                status_id=n % 3,
            )
            for n in range(10)
        )
        index.commit()
    index.upsert([wiki_page(1, "Release notes"), meeting(2, "Standup", ["Hiring", "Budget"])])
    index.delete("work_package", [3, 17])
    index.commit()


def test_compaction_leaves_one_segment_and_the_same_records_and_answers(
    index: TenantIndex,
) -> None:
    _commit_in_batches(index)
    assert index.stats().segments > 1
    before = {kind: [index.get(kind, i) for i in index.all_ids(kind)] for kind in KINDS}
    answers = _answers(index)
    opstamp = index.stats().opstamp

    copy = compacted(index, batch=7)

    assert copy is not None and copy.generation != index.generation
    assert index.stats().opstamp == opstamp  # the original is left as it was
    copy.publish()
    index = TenantIndex(index.directory)
    assert index.directory.generations() == [copy.generation]  # the old one removed
    stats = index.stats()
    assert stats.segments == 1
    assert stats.documents == sum(len(records) for records in before.values())
    after = {kind: [index.get(kind, i) for i in index.all_ids(kind)] for kind in KINDS}
    assert after == before
    assert _answers(index) == answers
    index.check_complete()
    index.close()
    copy.close()


def test_compaction_of_one_segment_or_an_empty_index_does_nothing(index: TenantIndex) -> None:
    assert compacted(index) is None
    index.upsert([work_package(1, "budget")])
    index.commit()
    assert compacted(index) is None
    assert index.directory.generations() == [index.generation]


def test_a_generation_above_the_limit_is_left_as_it_is(index: TenantIndex) -> None:
    _commit_in_batches(index)  # 40 work packages, a wiki page and a meeting, 2 deleted
    assert index.stats().segments > 1
    assert compacted(index, limit=39) is None
    assert index.directory.generations() == [index.generation]
    copy = compacted(index, limit=40)
    assert copy is not None
    copy.discard()


def test_a_failed_copy_is_discarded(index: TenantIndex, monkeypatch: pytest.MonkeyPatch) -> None:
    _commit_in_batches(index)

    def full_disk(self: TenantIndex) -> None:
        raise IndexUnavailableError("no space left on device")

    monkeypatch.setattr(TenantIndex, "commit", full_disk)
    with pytest.raises(IndexUnavailableError):
        compacted(index)
    assert index.directory.generations() == [index.generation]
