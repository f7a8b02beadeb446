"""The index path on a real Tantivy index: filters, relaxation wiring, window growth."""

from __future__ import annotations

import pytest
from service_records import meeting, work_package

import opindex.service.index_path as index_path
from opindex.envelope import SearchRequest
from opindex.errors import InvalidArgumentError
from opindex.index import NO_FILTERS, CandidateList, TenantIndex
from opindex.search.fields import rank_documents
from opindex.search.query import Query, parse_query
from opindex.service.filters import check_filters, index_filters
from opindex.service.relaxation import merge_thesauri
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
    real = index.doc_freq

    def counted(kind: str, token: str) -> int:
        asked.append(token)
        return real(kind, token)

    monkeypatch.setattr(index, "doc_freq", counted)
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


def test_growing_window_and_cap(tenant_index: TenantIndex, monkeypatch: pytest.MonkeyPatch) -> None:
    records = [
        work_package(i, f"Release checklist {i}", "release notes" if i % 3 else "deploy notes")
        for i in range(1, 121)
    ]
    tenant_index.upsert(records)
    tenant_index.commit()
    query = parse_query("release")
    expected = rank_documents([r.document for r in records], query, "work_package", limit=10)
    monkeypatch.setattr(index_path, "FIRST_WINDOW", 8)
    hits = index_path.search_index(tenant_index, query, "work_package", NO_FILTERS, 5)
    assert [(h.record.id, h.ranked.score) for h in hits] == [
        (r.record.id, r.score) for r in expected[:5]
    ]
    assert hits.total == 120
    monkeypatch.setattr(index_path, "MAX_CANDIDATES", 32)
    capped = index_path.search_index(tenant_index, query, "work_package", NO_FILTERS, 5)
    assert len(capped) == 5
    assert any("only the best 32" in note for note in capped.notes)


def test_final_window_is_the_last_growth_step() -> None:
    assert index_path.final_window(200, 150) == 200
    assert index_path.final_window(200, 4454) == index_path.MAX_CANDIDATES
    assert index_path.final_window(200, 3896) == 3896  # 200 -> 800 -> everything
    assert index_path.final_window(8, 120) == 120


def _record_windows(tenant_index: TenantIndex, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The list that receives every window size ``tenant_index.candidates`` is asked for."""
    windows: list[int] = []
    real_candidates = tenant_index.candidates

    def recorded(*args: object) -> object:
        windows.append(args[-1])  # type: ignore[arg-type]
        return real_candidates(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(tenant_index, "candidates", recorded)
    return windows


def _search_two(
    tenant_index: TenantIndex, query: Query, windows: list[int]
) -> tuple[index_path.HitList, list[int]]:
    """The top 2 work packages for *query*, and the windows this search asked for."""
    windows.clear()
    hits = index_path.search_index(tenant_index, query, "work_package", NO_FILTERS, 2)
    return hits, list(windows)


@pytest.mark.parametrize("cap", [4_000, 32])
def test_one_term_jumps_to_the_last_window_with_the_same_answer(
    tenant_index: TenantIndex, monkeypatch: pytest.MonkeyPatch, cap: int
) -> None:
    tenant_index.upsert(
        [
            work_package(i, f"Release checklist {i}", "release notes" if i % 3 else "relase")
            for i in range(1, 121)
        ]
    )
    tenant_index.commit()
    monkeypatch.setattr(index_path, "FIRST_WINDOW", 8)
    monkeypatch.setattr(index_path, "MAX_CANDIDATES", cap)
    windows = _record_windows(tenant_index, monkeypatch)
    real_rule = index_path._grows_to_the_end
    jump = [True]

    monkeypatch.setattr(index_path, "_grows_to_the_end", lambda q: jump[0] and real_rule(q))

    def search(query: Query, jumping: bool) -> tuple[index_path.HitList, list[int]]:
        jump[0] = jumping
        return _search_two(tenant_index, query, windows)

    for text in ("release", "relase", "checklist", "release* checklist"):
        query = parse_query(text)
        jumped, jumped_windows = search(query, True)
        stepped, stepped_windows = search(query, False)
        assert [(h.record.id, h.ranked) for h in jumped] == [
            (h.record.id, h.ranked) for h in stepped
        ]
        assert (jumped.total, jumped.notes) == (stepped.total, stepped.notes)
        if len(query.terms) == 1:
            assert jumped_windows == [2, min(120, cap)]  # the smaller window, then the last
            assert stepped_windows == ([2, 8, 32, 120] if cap > 120 else [2, 8, 32])
        else:
            assert jumped_windows == stepped_windows


def test_a_smaller_first_window_gives_the_first_windows_answer(
    tenant_index: TenantIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    tenant_index.upsert(
        [
            *(
                work_package(i, f"Release checklist {i}", "release notes" if i % 3 else "deploy")
                for i in range(1, 41)
            ),
            work_package(41, "Quarterly budget review"),
            work_package(42, "Budget approval"),
        ]
    )
    tenant_index.commit()
    monkeypatch.setattr(index_path, "FIRST_WINDOW", 8)
    windows = _record_windows(tenant_index, monkeypatch)
    real_probe = index_path._probe_window
    probing = [True]

    # Without the smaller window, the probe is the first window itself.
    monkeypatch.setattr(index_path, "_probe_window", lambda w: real_probe(w) if probing[0] else w)

    def search(text: str, probe: bool) -> tuple[index_path.HitList, list[int]]:
        probing[0] = probe
        return _search_two(tenant_index, parse_query(text), windows)

    cases = {
        "quarterly": [2],  # one candidate: the small window holds everything
        "budget approval release": [2],  # what it cuts matches one term of three: cannot pass
        "release checklist": [2, 8, 40],  # what it cuts could pass: the windows as before
        "release notes": [2, 8, 27],  # the 27 matching both terms in one field: enough
    }
    for text, expected_windows in cases.items():
        probed, probed_windows = search(text, True)
        plain, _ = search(text, False)
        assert probed_windows == expected_windows, text
        assert [(h.record.id, h.ranked) for h in probed] == [(h.record.id, h.ranked) for h in plain]
        assert (probed.total, probed.notes) == (plain.total, plain.notes), text


def test_growth_stops_at_the_counted_passable_candidates_with_the_same_answer(
    tenant_index: TenantIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    tenant_index.upsert(
        [
            *(work_package(i, f"alpha beta filler {i}") for i in range(1, 13)),
            *(work_package(i, f"alpha only {i}") for i in range(13, 61)),
            *(work_package(i, f"delta epsilon {i}") for i in range(61, 66)),
            *(work_package(i, f"delta only {i}") for i in range(66, 101)),
        ]
    )
    tenant_index.commit()
    monkeypatch.setattr(index_path, "FIRST_WINDOW", 8)
    windows = _record_windows(tenant_index, monkeypatch)
    real_settling = index_path._settling_window
    settling = [True]

    def chosen(query: Query, candidates: CandidateList, window: int) -> int:
        return real_settling(query, candidates, window) if settling[0] else window

    monkeypatch.setattr(index_path, "_settling_window", chosen)

    def search(text: str, settle: bool) -> tuple[index_path.HitList, list[int]]:
        settling[0] = settle
        return _search_two(tenant_index, parse_query(text), windows)

    # Twelve candidates match two of the three terms (the fewest that can pass); the
    # search of window 8 looked at 32 and counted them: window 12 instead of all 60.
    # Five match two terms of "delta epsilon zeta": the smaller window's search counted
    # them, so the first full window is 5 instead of 8.
    cases = {"alpha beta gamma": ([2, 8, 12], [2, 8, 60]), "delta epsilon zeta": ([2, 5], [2, 8])}
    for text, (expected_settled, expected_plain) in cases.items():
        settled, settled_windows = search(text, True)
        plain, plain_windows = search(text, False)
        assert (settled_windows, plain_windows) == (expected_settled, expected_plain), text
        assert [(h.record.id, h.ranked) for h in settled] == [
            (h.record.id, h.ranked) for h in plain
        ]
        assert (settled.total, settled.notes) == (plain.total, plain.notes), text
