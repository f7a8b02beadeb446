"""One filter model, compiled twice: Tantivy clauses (listings) and the engine's column
mask (ranked searches) keep the same records for every filter."""

from __future__ import annotations

import random
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
from index_fixtures import work_package

from opindex.engine import IndexFilters
from opindex.index import TenantIndex
from opindex.search.query import parse_query

DAY = datetime(2024, 3, 1, tzinfo=UTC)


@pytest.fixture(scope="module")
def varied(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TenantIndex]:
    """60 work packages, every attribute sometimes absent, several ids past 16 bits."""
    index = TenantIndex.create(tmp_path_factory.mktemp("agreement") / "index")
    rng = random.Random(11)

    def maybe(values: list[int]) -> int | None:
        return rng.choice([*values, None])

    records = []
    for record_id in range(1, 61):
        attributes: dict[str, int | bool] = {}
        for name, values in (
            ("status_id", [1, 2, 5, 70_000]),
            ("type_id", [10, 11]),
            ("assignee_id", [100, 101, 2**40]),
            ("author_id", [7, 8]),
        ):
            value = maybe(values)
            if value is not None:
                attributes[name] = value
        if rng.random() < 0.8:
            attributes["is_closed"] = rng.random() < 0.4
        updated = DAY + timedelta(days=rng.randrange(30)) if rng.random() < 0.85 else None
        records.append(
            work_package(
                record_id,
                "budget review",
                project_id=maybe([1, 2, 300]),
                updated_at=updated,
                **attributes,
            )
        )
    index.upsert(records)
    index.commit()
    yield index
    index.close()


FILTERS = [
    IndexFilters(),
    IndexFilters(project_ids=(1,)),
    IndexFilters(project_ids=(2, 300, 9)),
    IndexFilters(project_ids=()),
    IndexFilters(status="open"),
    IndexFilters(status="closed"),
    IndexFilters(status=(1, 70_000)),
    IndexFilters(type_ids=(11,)),
    IndexFilters(assignee_ids=(None,)),
    IndexFilters(assignee_ids=(101, None)),
    IndexFilters(assignee_ids=(2**40,)),
    IndexFilters(author_ids=(8, 99)),
    IndexFilters(updated_after=DAY + timedelta(days=10)),
    IndexFilters(updated_before=DAY + timedelta(days=10)),
    IndexFilters(updated_after=DAY + timedelta(days=3), updated_before=DAY + timedelta(days=20)),
]


def _listed(index: TenantIndex, filters: IndexFilters) -> list[int]:
    """Tantivy's answer: an empty query lists records through the filter clauses."""
    return sorted(r.id for r in index.candidates(parse_query(""), "work_package", filters, 1000))


def _ranked(index: TenantIndex, filters: IndexFilters) -> list[int]:
    """The engine's answer: a fuzzy query every record matches, filtered by the mask."""
    records, _, _ = index.ranked(parse_query("budgt"), "work_package", filters, 1000)
    return sorted(r.id for r in records)


@pytest.mark.parametrize("first", range(len(FILTERS)))
def test_tantivy_clauses_and_engine_mask_agree(varied: TenantIndex, first: int) -> None:
    a = FILTERS[first]
    for b in FILTERS[first:]:
        combined = IndexFilters(
            **{
                name: getattr(b, name) if getattr(a, name) is None else getattr(a, name)
                for name in IndexFilters.__dataclass_fields__
            }
        )
        listed = _listed(varied, combined)
        assert listed == _ranked(varied, combined), combined
        if combined == IndexFilters():
            assert listed == list(range(1, 61))
