"""Live meeting search per meetings API level: enrichment cost, notes, project filter."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from live_support import AGENDA_ITEMS, MEETING_DETAIL, count_paths, live_searcher, request
from tests.support.sandbox import CorpusBuilder, SandboxHandle, running_sandbox


def corpus() -> dict[str, Any]:
    builder = CorpusBuilder()
    builder.add_meeting(
        12,
        title="Weekly sync",
        location="Room 4",
        agendaItems=[
            {
                "id": 120,
                "title": "Hiring plan",
                "notes": "Two backend roles.",
                "position": 1,
                "outcomes": [{"id": 1200, "kind": "decision", "notes": "Hire two seniors."}],
            }
        ],
    )
    builder.add_meeting(13, title="Board review", project=2, location="Berlin", participants=[1])
    builder.add_meeting(14, title="Community call", project=3, location="Zoom")
    return builder.build()


@pytest.fixture(scope="module")
def sandbox() -> Iterator[SandboxHandle]:
    """The current meetings API (17.6: agenda items with outcomes)."""
    with running_sandbox(corpus()) as handle:
        yield handle


@pytest.fixture
def handle(sandbox: SandboxHandle) -> Iterator[SandboxHandle]:
    sandbox.clear_faults()
    sandbox.reset_stats()
    yield sandbox
    sandbox.clear_faults()


async def test_meetings_are_enriched_with_detail_and_agenda(handle: SandboxHandle) -> None:
    async with live_searcher(handle) as (searcher, _):
        outcome = await searcher.search(request("meeting", "hire seniors"))
        in_project = await searcher.search(request("meeting", "", project_id=2))
    stats = handle.stats()
    assert [hit.record.id for hit in outcome.hits] == [12]
    hit = outcome.hits[0]
    assert hit.matched_fields[0] == "outcome_notes"
    assert hit.ref_of(hit.ranked.matches[0]) == 120
    assert outcome.enrichment_calls == 3
    assert count_paths(stats, MEETING_DETAIL) == 3
    assert count_paths(stats, AGENDA_ITEMS) == 3
    assert outcome.notes == []
    # An empty query lists the project's meetings, unranked, without enrichment.
    assert [hit.record.id for hit in in_project.hits] == [13]
    assert in_project.enrichment_calls == 0


async def test_participants_and_author_are_searchable(handle: SandboxHandle) -> None:
    async with live_searcher(handle) as (searcher, _):
        participant = await searcher.search(request("meeting", "ada admin"))
        author = await searcher.search(request("meeting", "muller"))
    assert {hit.record.id for hit in participant.hits} == {12, 13, 14}
    assert all(hit.matched_fields == ["participants"] for hit in participant.hits)
    assert {hit.record.id for hit in author.hits} == {12, 13, 14}
    assert all("author" in hit.matched_fields for hit in author.hits)


async def test_servers_before_17_4_search_shallow_fields_with_a_note() -> None:
    with running_sandbox(corpus(), meetings_api="16") as handle:
        async with live_searcher(handle) as (searcher, _):
            titled = await searcher.search(request("meeting", "weekly"))
            deep = await searcher.search(request("meeting", "hiring plan"))
        stats = handle.stats()
    assert [hit.record.id for hit in titled.hits] == [12]
    assert deep.hits == []
    for outcome in (titled, deep):
        assert outcome.degraded is False  # a server limit, not a failure to read
        assert outcome.enrichment_failures == 0
        assert any("17.4" in note for note in outcome.notes)
    assert count_paths(stats, MEETING_DETAIL) == 0
    assert count_paths(stats, AGENDA_ITEMS) == 0


async def test_17_4_servers_have_agenda_items_without_outcomes() -> None:
    with running_sandbox(corpus(), meetings_api="17.4") as handle:
        async with live_searcher(handle) as (searcher, _):
            agenda = await searcher.search(request("meeting", "hiring plan"))
            outcome_only = await searcher.search(request("meeting", "hire seniors"))
    assert [hit.record.id for hit in agenda.hits] == [12]
    assert agenda.hits[0].matched_fields[0] == "agenda_title"
    assert outcome_only.hits == []
    assert outcome_only.degraded is False


async def test_agenda_failure_degrades_that_meeting_only(handle: SandboxHandle) -> None:
    handle.fault("/api/v3/meetings/12/agenda_items", status=500, count=1)
    async with live_searcher(handle) as (searcher, _):
        outcome = await searcher.search(request("meeting", "weekly sync"))
    assert outcome.degraded is True
    assert outcome.enrichment_failures == 1
    assert [hit.record.id for hit in outcome.hits] == [12]  # found by its title anyway
