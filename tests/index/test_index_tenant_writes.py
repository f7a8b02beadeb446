"""Upsert, overwrite, delete, commit visibility and record round-trips on a real index."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest
from index_fixtures import meeting, wiki_page, work_package

from opindex.errors import InvalidArgumentError
from opindex.index import TenantIndex
from opindex.records import Record
from opindex.search.document import KINDS, FieldValue, SearchDocument
from opindex.search.query import Alternative, parse_query


def ids(records: list[Record]) -> list[int]:
    return sorted(r.id for r in records)


def test_get_returns_the_record_exactly_as_upserted(index: TenantIndex) -> None:
    aware = datetime(2024, 5, 1, 12, 30, 15, 123456, tzinfo=timezone(timedelta(hours=2)))
    record = work_package(
        7,
        "Budget approval",
        "Needs **sign-off** by Müller",
        ["first comment", "zweiter Kommentar"],
        updated_at=aware,
        status_id=3,
        status_name="In progress",
        is_closed=False,
        assignee_id=None,
        estimate=2.5,
    )
    index.upsert([record, wiki_page(7, "Same id, other kind"), meeting(9, "Standup", ["Hiring"])])
    index.commit()
    assert index.get("work_package", 7) == record
    assert index.get("wiki_page", 7) == wiki_page(7, "Same id, other kind")
    assert index.get("meeting", 9) == meeting(9, "Standup", ["Hiring"])
    assert index.get("work_package", 8) is None
    stored = index.get("meeting", 9)
    assert stored is not None
    assert stored.document.fields["agenda_title"] == (FieldValue("Hiring", ref=500),)


def test_naive_datetimes_round_trip_unchanged(index: TenantIndex) -> None:
    record = work_package(1, "x", updated_at=datetime(2023, 1, 2, 3, 4, 5))
    index.upsert([record])
    index.commit()
    assert index.get("work_package", 1) == record


def test_writes_are_invisible_until_commit(index: TenantIndex) -> None:
    index.upsert([work_package(1, "budget")])
    assert index.get("work_package", 1) is None
    assert index.count("work_package") == 0
    info = index.commit()
    assert index.get("work_package", 1) is not None
    assert info.documents == 1
    assert info.generation == index.generation


def test_reupsert_replaces_without_duplicates(index: TenantIndex) -> None:
    index.upsert([work_package(1, "old subject"), work_package(2, "other")])
    first = index.commit()
    index.upsert([work_package(1, "new subject")])
    second = index.commit()
    assert second.opstamp > first.opstamp
    assert index.count("work_package") == 2
    assert index.all_ids("work_package") == [1, 2]
    stored = index.get("work_package", 1)
    assert stored is not None and stored.title == "new subject"
    assert ids(index.candidates(parse_query("old"), "work_package")) == []
    assert ids(index.candidates(parse_query("new"), "work_package")) == [1]


def test_the_same_record_twice_in_one_batch_keeps_the_last(index: TenantIndex) -> None:
    index.upsert([work_package(1, "first"), work_package(1, "second")])
    index.commit()
    assert index.count("work_package") == 1
    stored = index.get("work_package", 1)
    assert stored is not None and stored.title == "second"


def test_delete_really_deletes(index: TenantIndex) -> None:
    index.upsert([work_package(i, f"budget item {i}") for i in range(1, 6)])
    index.upsert([wiki_page(3, "budget page")])
    index.commit()
    assert index.delete("work_package", [2, 3, 99]) == 3
    index.commit()
    assert index.all_ids("work_package") == [1, 4, 5]
    assert index.count("work_package") == 3
    assert index.get("work_package", 3) is None
    assert index.get("wiki_page", 3) is not None  # same id, other kind: untouched
    assert ids(index.candidates(parse_query("budget"), "work_package")) == [1, 4, 5]
    assert index.term_frequency("work_package", Alternative("budget")) == 3


def test_counts_stats_and_term_frequencies(index: TenantIndex) -> None:
    index.upsert([work_package(1, "budget plan"), work_package(2, "budget"), wiki_page(1, "plan")])
    index.upsert([meeting(1, "budget review")])
    index.commit()
    stats = index.stats()
    counts = {kind: count for kind, count in stats.documents_per_kind.items() if count}
    assert counts == {"work_package": 2, "wiki_page": 1, "meeting": 1}
    assert set(stats.documents_per_kind) == set(KINDS)
    assert stats.documents == 4
    assert stats.bytes_on_disk > 0
    assert stats.generation == index.generation
    assert index.term_frequency("work_package", Alternative("budget")) == 2
    assert index.term_frequency("wiki_page", Alternative("budget")) == 0
    assert index.term_frequency("meeting", Alternative("budget")) == 1
    assert index.term_frequency("work_package", Alternative("budgte")) == 2  # a typo counts
    assert index.term_frequency("wiki_page", Alternative("pla", prefix=True)) == 1


def test_bytes_on_disk_counts_every_file_of_the_generation(index_root: Path) -> None:
    with TenantIndex.create(index_root) as index:
        index.upsert([work_package(1, "budget plan " * 200), wiki_page(1, "plan")])
        index.commit()
        folder = index_root / index.generation
        files = [path for path in folder.rglob("*") if path.is_file()]
        analysis = [path for path in files if path.parent.name == "analysis"]
        assert analysis, "the analysis store lives in a folder of the generation"
        assert index.stats().bytes_on_disk == sum(path.stat().st_size for path in files)


def test_a_bad_record_rejects_the_whole_batch_and_loses_nothing(index: TenantIndex) -> None:
    index.upsert([work_package(1, "kept")])
    index.commit()
    bad = Record(
        document=SearchDocument("work_package", 2, {"no_such_field": (FieldValue("x"),)}),
        title="bad",
    )
    with pytest.raises(InvalidArgumentError, match="no_such_field"):
        index.upsert([work_package(3, "good"), bad])
    index.commit()
    assert index.all_ids("work_package") == [1]
    with pytest.raises(InvalidArgumentError, match="kind"):
        index.delete("issue", [1])
    with pytest.raises(InvalidArgumentError, match="ints"):
        index.delete("work_package", [1, "2"])  # type: ignore[list-item]
    index.commit()
    assert index.all_ids("work_package") == [1]
    with pytest.raises(InvalidArgumentError, match="kind"):
        index.count("issue")


def test_rollback_and_close_drop_uncommitted_writes(index: TenantIndex) -> None:
    index.upsert([work_package(1, "one")])
    index.rollback()
    index.upsert([work_package(2, "two")])
    index.close()
    assert index.commit().documents == 0
    assert index.all_ids("work_package") == []


def test_commit_from_one_instance_is_seen_by_another(index: TenantIndex) -> None:
    reader = TenantIndex(index.directory)
    assert reader.count("work_package") == 0
    index.upsert([work_package(1, "budget")])
    index.commit()
    assert ids(reader.candidates(parse_query("budget"), "work_package")) == [1]
    index.delete("work_package", [1])
    index.commit()
    assert reader.get("work_package", 1) is None


def test_updated_at_with_utc_and_none(index: TenantIndex) -> None:
    records = [
        work_package(1, "a", updated_at=datetime(2024, 1, 1, tzinfo=UTC)),
        work_package(2, "a", updated_at=None),
    ]
    index.upsert(records)
    index.commit()
    assert [index.get("work_package", i) for i in (1, 2)] == records
