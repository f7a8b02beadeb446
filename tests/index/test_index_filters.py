"""Filters applied inside the candidate query: kind, project, status, type, assignee, time."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from index_fixtures import meeting, wiki_page, work_package

from opindex.errors import InvalidArgumentError
from opindex.index import IndexFilters, TenantIndex
from opindex.search.query import parse_query


@pytest.fixture
def filled(index: TenantIndex) -> TenantIndex:
    day = datetime(2024, 3, 1, tzinfo=UTC)
    index.upsert(
        [
            work_package(1, "budget", project_id=1, status_id=1, is_closed=False, type_id=10,
                         assignee_id=100, author_id=7, updated_at=day.replace(day=1)),
            work_package(2, "budget", project_id=1, status_id=5, is_closed=True, type_id=11,
                         assignee_id=101, author_id=8, updated_at=day.replace(day=10)),
            work_package(3, "budget", project_id=2, status_id=2, is_closed=False, type_id=10,
                         updated_at=day.replace(day=20)),
            work_package(4, "budget", project_id=None),
            wiki_page(1, "budget", project_id=1),
            meeting(1, "budget"),
        ]
    )  # fmt: skip
    index.commit()
    return index


def found(index: TenantIndex, kind: str = "work_package", **filters: object) -> list[int]:
    query = parse_query("budgt")  # a typo: filters apply to fuzzy candidates too
    return sorted(r.id for r in index.candidates(query, kind, IndexFilters(**filters)))  # type: ignore[arg-type]


def test_kind_is_always_a_filter(filled: TenantIndex) -> None:
    assert found(filled) == [1, 2, 3, 4]
    assert found(filled, "wiki_page") == [1]
    assert found(filled, "meeting") == [1]
    with pytest.raises(InvalidArgumentError, match="kind"):
        found(filled, "issue")


def test_project(filled: TenantIndex) -> None:
    assert found(filled, project_ids=(1,)) == [1, 2]
    assert found(filled, project_ids=(1, 2)) == [1, 2, 3]
    assert found(filled, "wiki_page", project_ids=(2,)) == []
    assert found(filled, project_ids=()) == []


def test_status_open_closed_and_ids(filled: TenantIndex) -> None:
    assert found(filled, status="open") == [1, 3]
    assert found(filled, status="closed") == [2]
    assert found(filled, status=(1, 5)) == [1, 2]
    assert found(filled, "wiki_page", status="open") == []  # wiki pages have no status
    with pytest.raises(InvalidArgumentError, match="status"):
        found(filled, status="done")


def test_type_and_assignee(filled: TenantIndex) -> None:
    assert found(filled, type_ids=(10,)) == [1, 3]
    assert found(filled, assignee_ids=(101,)) == [2]
    assert found(filled, assignee_ids=(None,)) == [3, 4]
    assert found(filled, assignee_ids=(100, None)) == [1, 3, 4]


def test_author(filled: TenantIndex) -> None:
    assert found(filled, author_ids=(7,)) == [1]
    assert found(filled, author_ids=(7, 8)) == [1, 2]
    assert found(filled, author_ids=(9,)) == []


def test_updated_before_is_exclusive(filled: TenantIndex) -> None:
    assert found(filled, updated_before=datetime(2024, 3, 10, tzinfo=UTC)) == [1]
    assert found(filled, updated_after=datetime(2024, 3, 10, tzinfo=UTC)) == [2, 3]


def test_no_terms_lists_the_newest_first(filled: TenantIndex) -> None:
    listed = filled.candidates(parse_query(""), "work_package", IndexFilters(), 3)
    assert [record.id for record in listed] == [3, 2, 1]  # 4 has no update time: last
    assert listed.total == 4 and listed.truncated


def test_updated_range(filled: TenantIndex) -> None:
    after = datetime(2024, 3, 5, tzinfo=UTC)
    before = datetime(2024, 3, 15, tzinfo=UTC)
    assert found(filled, updated_after=after) == [2, 3]
    assert found(filled, updated_before=before) == [1, 2]  # unknown times never match
    assert found(filled, updated_after=after, updated_before=before) == [2]


def test_filters_combine(filled: TenantIndex) -> None:
    assert found(filled, project_ids=(1, 2), status="open", type_ids=(10,)) == [1, 3]


def test_filters_apply_to_containment_and_scans(filled: TenantIndex) -> None:
    exact = parse_query("BUDG", "exact")
    assert sorted(
        r.id for r in filled.candidates(exact, "work_package", IndexFilters(status="closed"))
    ) == [2]
    punctuation = parse_query("--", "exact")
    filled.upsert(
        [work_package(5, "a -- b", project_id=3), work_package(6, "a -- b", project_id=4)]
    )
    filled.commit()
    assert [
        r.id for r in filled.candidates(punctuation, "work_package", IndexFilters(project_ids=(4,)))
    ] == [6]
