"""The index path on a real Tantivy index: filters, relaxation wiring, window growth."""

from __future__ import annotations

import pytest
from service_records import meeting, work_package

import opindex.service.index_path as index_path
from opindex.envelope import SearchRequest
from opindex.errors import InvalidArgumentError
from opindex.index import NO_FILTERS, TenantIndex
from opindex.search.fields import rank_documents
from opindex.search.query import Alternative, parse_query
from opindex.service.relaxed_search import merge_thesauri
from opindex.service.request_filters import check_filters, index_filters
from opindex.service.search_flow import index_answer


@pytest.fixture
def index(tenant_index: TenantIndex) -> TenantIndex:
    tenant_index.upsert(
        [
            work_package(1, "Printer glitch on floor 2", is_closed=False, status_id=1),
            work_package(2, "Printer defect in lobby", is_closed=True, status_id=3, type_id=2),
            work_package(3, "Coffee machine defect", assignee_id=7, project_id=2),
            work_package(4, "Quarterly budget review", "Approval of the budget by finance"),
            meeting(10, "Budget meeting", agenda=[(100, "Approval of Q3 budget", "")]),
        ]
    )
    tenant_index.commit()
    return tenant_index


def _ids(index: TenantIndex, **request: object) -> list[int]:
    parsed = SearchRequest.model_validate({"kind": "work_package", **request})
    answer = index_answer(index, parsed, parse_query(parsed.query, parsed.match_mode), {})
    return [hit.record.id for hit in answer.hits]


def test_filters_map_to_the_index(index: TenantIndex) -> None:
    assert _ids(index, query="printer") == [1, 2]
    assert _ids(index, query="printer", status="open") == [1]
    assert _ids(index, query="printer", status="closed") == [2]
    assert _ids(index, query="printer", status=[3]) == [2]
    assert _ids(index, query="defect", type_id=2) == [2]
    assert _ids(index, query="defect", assignee_id=7) == [3]
    assert _ids(index, query="defect", project_id=2) == [3]


def test_filters_that_cannot_apply_are_refused() -> None:
    with pytest.raises(InvalidArgumentError, match="status, assignee_id"):
        check_filters(SearchRequest(kind="meeting", status="open", assignee_id=3))
    with pytest.raises(InvalidArgumentError, match="non-empty list"):
        check_filters(SearchRequest(kind="work_package", status=[]))
    filters = index_filters(SearchRequest(kind="work_package", status=[1, 2], type_id=4))
    assert (filters.status, filters.type_ids, filters.project_ids) == ((1, 2), (4,), None)


def test_drop_term_uses_index_frequencies(index: TenantIndex) -> None:
    request = SearchRequest(kind="work_package", query="printer zyxwv")
    answer = index_answer(index, request, parse_query(request.query), merge_thesauri({}))
    assert answer.outcome.strategy_used == "drop_term"
    assert answer.outcome.effective_query == "printer"
    assert [hit.record.id for hit in answer.hits] == [1, 2]


def test_drop_term_reads_each_frequency_once_per_search(
    index: TenantIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: list[str] = []
    real = index.term_frequency

    def counted(kind: str, alternative: Alternative) -> int:
        asked.append(alternative.token)
        return real(kind, alternative)

    monkeypatch.setattr(index, "term_frequency", counted)
    request = SearchRequest(kind="work_package", query="qqqqq printer zyxwv wwwww")
    answer = index_answer(index, request, parse_query(request.query), merge_thesauri({}))
    assert answer.outcome.effective_query == "printer"  # three terms dropped, one by one
    assert [hit.record.id for hit in answer.hits] == [1, 2]
    assert sorted(asked) == ["printer", "qqqqq", "wwwww", "zyxwv"]


def test_tenant_thesaurus_drives_concept_expansion(index: TenantIndex) -> None:
    request = SearchRequest(kind="work_package", query="hiccup")
    plain = index_answer(index, request, parse_query("hiccup"), merge_thesauri({}))
    assert plain.hits == []
    assert plain.outcome.strategy_used is None
    thesaurus = merge_thesauri({"Hiccup": ["glitch"]})
    relaxed = index_answer(index, request, parse_query("hiccup"), thesaurus)
    assert relaxed.outcome.strategy_used == "concept_expansion"
    assert [hit.record.id for hit in relaxed.hits] == [1]
    disabled = request.model_copy(update={"fallback": False})
    assert index_answer(index, disabled, parse_query("hiccup"), thesaurus).hits == []


def test_merged_thesaurus_puts_the_tenant_first() -> None:
    merged = merge_thesauri({"Bug": ["glitch", "defect"], "Zürich": ["zurich office"]})
    assert merged["bug"][:2] == ("glitch", "defect")
    assert merged["bug"].count("defect") == 1  # also a built-in synonym, listed once
    assert "issue" in merged["bug"]  # built-in synonyms follow
    assert merged["zurich"] == ("zurich office",)


def test_empty_query_lists_records(index: TenantIndex) -> None:
    request = SearchRequest(kind="work_package", query="", limit=2)
    answer = index_answer(index, request, parse_query(""), {})
    assert [hit.record.id for hit in answer.hits] == [4, 3]  # no update times: id desc
    assert answer.total == 4
    assert all(hit.ranked.score == 0.0 for hit in answer.hits)


def test_fuzzy_queries_rank_every_record_with_an_exact_total(tenant_index: TenantIndex) -> None:
    records = [
        work_package(i, f"Release checklist {i}", "release notes" if i % 3 else "deploy notes")
        for i in range(1, 121)
    ]
    tenant_index.upsert(records)
    tenant_index.commit()
    query = parse_query("release")
    expected = rank_documents([r.document for r in records], query, "work_package")
    hits = index_path.search_index(tenant_index, query, "work_package", NO_FILTERS, 5)
    assert [(h.record.id, h.ranked.score) for h in hits] == [
        (r.record.id, r.score) for r in expected[:5]
    ]
    assert hits.total == len(expected) == 120
    assert hits.notes == []
    assert [m.field for m in hits[0].ranked.matches] == [m.field for m in expected[0].matches]


def test_containment_window_grows_to_its_cap(
    tenant_index: TenantIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    tenant_index.upsert(work_package(i, f"Release-{i}") for i in range(1, 121))
    tenant_index.commit()
    query = parse_query("release-", "exact")
    monkeypatch.setattr(index_path, "FIRST_WINDOW", 8)
    hits = index_path.search_index(tenant_index, query, "work_package", NO_FILTERS, 5)
    assert [h.record.id for h in hits] == [1, 2, 3, 4, 5]
    assert hits.total == 120 and hits.notes == []
    monkeypatch.setattr(index_path, "MAX_CANDIDATES", 32)
    capped = index_path.search_index(tenant_index, query, "work_package", NO_FILTERS, 5)
    assert len(capped) == 5
    assert any("only the first 32" in note for note in capped.notes)
