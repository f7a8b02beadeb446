"""Live work package search end to end: sandbox over HTTP, faults, request counts."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from live_support import (
    WP_ACTIVITIES,
    WP_DETAIL,
    count_paths,
    distinct_paths,
    live_searcher,
    request,
)
from tests.support.sandbox import CLOSED_STATUS, CorpusBuilder, SandboxHandle, running_sandbox

from opindex.envelope import SearchRequest
from opindex.errors import AuthenticationError, InvalidArgumentError, RateLimitedError
from opindex.search.query import Alternative, parse_query

BUDGET_IDS = list(range(1, 41))  # project 1, "Budget review N", more recent with higher id
HIRING_IDS = [41, 42]  # project 1, old, subject matches "hiring"
CLOSED_IDS = {3, 7}
RECENT_IDS = list(range(201, 241))  # project 3, recent, nothing matches
TARGET = 300  # project 3, old; its only match is in a comment
OLD_IDS = list(range(1001, 1261))  # project 4: 260 work packages, the oldest matches


def corpus() -> dict[str, Any]:
    builder = CorpusBuilder()
    for wp_id in BUDGET_IDS:
        builder.add_work_package(
            wp_id,
            subject=f"Budget review {wp_id}",
            description="Quarterly numbers for finance.",
            updatedAt=f"2026-03-01T{wp_id // 4:02d}:{(wp_id % 4) * 15:02d}:00Z",
            status=CLOSED_STATUS if wp_id in CLOSED_IDS else 1,
            activities=[{"id": 5000 + wp_id, "user": 2, "comment": f"Looked at line {wp_id}."}],
        )
    builder.add_work_package(41, subject="Hiring plan", updatedAt="2025-01-01T09:00:00Z")
    builder.add_work_package(42, subject="Hiring budget", updatedAt="2025-01-02T09:00:00Z")
    for wp_id in RECENT_IDS:
        builder.add_work_package(
            wp_id, project=3, subject=f"Task {wp_id}", updatedAt="2026-05-01T09:00:00Z"
        )
    builder.add_work_package(
        TARGET,
        project=3,
        subject="Quarterly cleanup",
        updatedAt="2025-06-01T09:00:00Z",
        activities=[
            {"id": 7001, "user": 1, "comment": "We took the rollback decision after the outage."}
        ],
    )
    builder.add_project(4, name="Archive", members=[1])
    for wp_id in OLD_IDS:
        builder.add_work_package(
            wp_id,
            project=4,
            subject="Legacy invoice export" if wp_id == OLD_IDS[0] else f"Chore {wp_id}",
            updatedAt=f"2024-01-01T00:00:{wp_id % 60:02d}Z" if wp_id != OLD_IDS[0] else None,
        )
    data = builder.build()
    for wp in data["work_packages"]:
        if wp["updatedAt"] is None:
            wp["updatedAt"] = "2020-01-01T00:00:00Z"
    return data


@pytest.fixture(scope="module")
def sandbox() -> Iterator[SandboxHandle]:
    with running_sandbox(corpus()) as handle:
        yield handle


@pytest.fixture(autouse=True)
def fresh_sandbox(sandbox: SandboxHandle) -> Iterator[None]:
    sandbox.clear_faults()
    sandbox.reset_stats()
    yield
    sandbox.clear_faults()


async def test_enrichment_is_bounded_in_count_and_concurrency(sandbox: SandboxHandle) -> None:
    async with live_searcher(sandbox) as (searcher, transport):
        outcome = await searcher.search(request("work_package", "budget review", project_id=1))
    stats = sandbox.stats()
    assert len(outcome.hits) == 40
    assert outcome.enrichment_calls == 25
    assert count_paths(stats, WP_DETAIL) == 25
    assert count_paths(stats, WP_ACTIVITIES) == 25
    # users/me + statuses + Query A + Query B (one page each) + 25 x (detail + activities)
    assert stats["requests"] == outcome.requests == 54
    assert 2 <= transport.peak <= 8
    # The 25 best shallow hits (all tie at the top, so lowest ids) were enriched.
    enriched = {int(path.rsplit("/", 1)[1]) for path in distinct_paths(stats, WP_DETAIL)}
    assert enriched == set(range(1, 26))
    assert outcome.degraded is False


async def test_backfill_reads_the_most_recent_when_few_match(sandbox: SandboxHandle) -> None:
    async with live_searcher(sandbox) as (searcher, _):
        outcome = await searcher.search(request("work_package", "hiring", project_id=1))
    stats = sandbox.stats()
    enriched = {int(path.rsplit("/", 1)[1]) for path in distinct_paths(stats, WP_DETAIL)}
    assert enriched == {41, 42, *range(18, 41)}  # 2 shallow hits + the 23 newest others
    assert [hit.record.id for hit in outcome.hits] == [41, 42]


async def test_401_during_enrichment_aborts_the_search(sandbox: SandboxHandle) -> None:
    sandbox.fault("/api/v3/work_packages/", status=401, count=1)
    async with live_searcher(sandbox) as (searcher, _):
        with pytest.raises(AuthenticationError):
            await searcher.search(request("work_package", "budget review", project_id=1))
    assert count_paths(sandbox.stats(), WP_DETAIL) < 25


async def test_429_beyond_the_retry_budget_aborts(sandbox: SandboxHandle) -> None:
    sandbox.fault("/api/v3/work_packages/", status=429, count=50, retry_after=0)
    async with live_searcher(sandbox) as (searcher, _):
        with pytest.raises(RateLimitedError):
            await searcher.search(request("work_package", "budget review", project_id=1))


async def test_a_single_429_is_retried_not_fatal(sandbox: SandboxHandle) -> None:
    sandbox.fault("/api/v3/work_packages/", status=429, count=1, retry_after=0)
    async with live_searcher(sandbox) as (searcher, _):
        outcome = await searcher.search(request("work_package", "budget review", project_id=1))
    assert outcome.degraded is False
    assert len(outcome.hits) == 40


async def test_500_degrades_one_record_and_keeps_the_rest(sandbox: SandboxHandle) -> None:
    sandbox.fault("/api/v3/work_packages/5/", status=500, count=1)  # its activities only
    async with live_searcher(sandbox) as (searcher, _):
        outcome = await searcher.search(request("work_package", "budget review", project_id=1))
    assert outcome.degraded is True
    assert outcome.enrichment_failures == 1
    assert any("HTTP 500" in note for note in outcome.notes)
    by_id = {hit.record.id: hit for hit in outcome.hits}
    assert len(by_id) == 40
    assert set(by_id[5].ranked.record.fields) == {"subject"}  # shallow score kept
    assert {"subject", "description", "comments"} <= set(by_id[6].ranked.record.fields)


async def test_no_match_is_an_empty_honest_answer(sandbox: SandboxHandle) -> None:
    async with live_searcher(sandbox) as (searcher, _):
        clean = await searcher.search(request("work_package", "kubernetes", project_id=1))
    assert clean.hits == []
    assert clean.degraded is False

    sandbox.fault("/api/v3/work_packages/40/", status=500, count=1)
    async with live_searcher(sandbox) as (searcher, _):
        failed = await searcher.search(request("work_package", "kubernetes", project_id=1))
    assert failed.hits == []
    assert failed.degraded is True  # "could not read everything", not "nothing exists"


async def test_deep_only_match_outside_the_window_is_not_found(sandbox: SandboxHandle) -> None:
    """The recall ceiling (spec §6.1): 40 newer work packages push the target out."""
    query = request("work_package", "rollback decision", project_id=3)
    async with live_searcher(sandbox) as (searcher, _):
        outcome = await searcher.search(query)
    assert outcome.candidates == 41
    assert outcome.hits == []
    assert f"/api/v3/work_packages/{TARGET}" not in sandbox.stats()["by_path"]

    # The same search with a window wide enough to reach it does find it.
    async with live_searcher(sandbox, enrich_limit=45) as (searcher, _):
        wider = await searcher.search(query)
    assert [hit.record.id for hit in wider.hits] == [TARGET]
    assert wider.hits[0].matched_fields == ["comments"]
    assert wider.hits[0].ref_of(wider.hits[0].ranked.matches[0]) == 7001


async def test_empty_query_lists_candidates_unranked(sandbox: SandboxHandle) -> None:
    async with live_searcher(sandbox) as (searcher, _):
        outcome = await searcher.search(request("work_package", "  ", project_id=1))
    stats = sandbox.stats()
    assert count_paths(stats, WP_DETAIL) == 0
    assert "/api/v3/statuses" in stats["by_path"]
    ids = [hit.record.id for hit in outcome.hits]
    assert ids[:3] == [40, 39, 38]  # Query B order: most recently updated first
    assert sorted(ids) == [*BUDGET_IDS, *HIRING_IDS]
    assert all(hit.score == 0.0 for hit in outcome.hits)


async def test_status_filter_reaches_the_server(sandbox: SandboxHandle) -> None:
    async with live_searcher(sandbox) as (searcher, _):
        closed = await searcher.search(
            request("work_package", "budget review", project_id=1, status="closed")
        )
        listed = await searcher.search(
            request("work_package", "budget", project_id=1, status=[CLOSED_STATUS])
        )
    assert sorted(hit.record.id for hit in closed.hits) == sorted(CLOSED_IDS)
    assert all(hit.record.attributes["is_closed"] is True for hit in closed.hits)
    assert sorted(hit.record.id for hit in listed.hits) == sorted(CLOSED_IDS)


async def test_type_and_assignee_filters_reach_the_server(sandbox: SandboxHandle) -> None:
    async with live_searcher(sandbox) as (searcher, _):
        bugs = await searcher.search(request("work_package", "budget", project_id=1, type_id=2))
        bobs = await searcher.search(request("work_package", "", project_id=1, assignee_id=2))
        adas = await searcher.search(request("work_package", "", project_id=1, assignee_id=1))
    assert bugs.hits == [] and bugs.candidates == 0
    assert len(bobs.hits) == 42  # every work package of the corpus builder is Bob's
    assert adas.hits == []


async def test_query_a_finds_subject_matches_beyond_the_window(sandbox: SandboxHandle) -> None:
    """Project 4 holds 260 work packages; the one matching is the oldest, outside the
    250-wide recency window of Query B, and still found through Query A (spec §3.3)."""
    async with live_searcher(sandbox) as (searcher, transport):
        outcome = await searcher.search(request("work_package", "invoice export", project_id=4))
    assert [hit.record.id for hit in outcome.hits] == [OLD_IDS[0]]
    assert outcome.candidates == 251  # the window (250) plus the subject match
    assert any("250" in note for note in outcome.notes)
    lists = [url for url in transport.urls if url.path == "/api/v3/work_packages"]
    filters = sorted(url.params["filters"] for url in lists)
    assert filters == [
        '[{"project":{"operator":"=","values":["4"]}},'
        '{"subject":{"operator":"~","values":["invoice export"]}}]',
        '[{"project":{"operator":"=","values":["4"]}}]',
    ]
    assert {url.params["sortBy"] for url in lists} == {'[["updatedAt","desc"],["id","desc"]]'}


async def test_a_relaxed_rerun_fetches_nothing_again(sandbox: SandboxHandle) -> None:
    async with live_searcher(sandbox) as (searcher, _):
        session = searcher.session(request("work_package", "budget review", project_id=1))
        first = await session.run()
        second = await session.run(parse_query("budget* review*"))
        assert session.doc_freq(Alternative("budget")) == 41  # 40 subjects + "Hiring budget"
        assert session.doc_freq(Alternative("hiring")) == 2
        assert session.doc_freq(Alternative("absent")) == 0
        assert session.doc_freq(Alternative("hirng")) == 2  # a typo counts its matches
    assert first.requests == 54
    assert second.requests == 0
    assert [hit.record.id for hit in second.hits] == [hit.record.id for hit in first.hits]


async def test_invalid_match_mode_is_rejected_before_any_request(sandbox: SandboxHandle) -> None:
    bogus = SearchRequest.model_construct(
        kind="work_package", query="budget", match_mode="bogus", limit=10
    )
    async with live_searcher(sandbox) as (searcher, _):
        with pytest.raises(InvalidArgumentError, match="match mode"):
            searcher.session(bogus)
        with pytest.raises(InvalidArgumentError):
            await searcher.list_activities(1, "budget", match_mode="FUZZY")
        with pytest.raises(InvalidArgumentError, match="limit"):
            await searcher.list_activities(1, "budget", limit=0)
    assert sandbox.stats()["requests"] == 0


async def test_activities_are_ranked_client_side(sandbox: SandboxHandle) -> None:
    async with live_searcher(sandbox) as (searcher, _):
        ranked = await searcher.list_activities(TARGET, "rolback")
        everything = await searcher.list_activities(TARGET)
        exact = await searcher.list_activities(TARGET, "ROLLBACK D", match_mode="exact")
        none = await searcher.list_activities(TARGET, "kubernetes")
    assert [item.record.id for item in ranked.activities] == [7001]
    assert ranked.activities[0].matches[0].field == "comment"
    assert ranked.ranked is True
    assert everything.ranked is False and everything.total == 1
    assert [item.record.id for item in exact.activities] == [7001]
    assert none.activities == [] and none.total == 1
    # One list request per call (plus the identity check once per client).
    assert count_paths(sandbox.stats(), WP_ACTIVITIES) == 4
