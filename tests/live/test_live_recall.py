"""Recall (spec §7.4) and exact-mode regression (§7.2) through the live path, over HTTP."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from live_support import live_searcher, request
from tests.support.sandbox import SandboxHandle, running_sandbox
from tests.support.search_corpus import containment_ids, shared_fixture_corpus

from opindex.live import LiveHit
from opindex.search.query import parse_query
from opindex.service.result_builder import ResultBuilder, ScoredHit


@pytest.fixture(scope="module")
def sandbox() -> Iterator[SandboxHandle]:
    with running_sandbox(shared_fixture_corpus(), wiki_list=True) as handle:
        yield handle


def agenda_refs(hit: LiveHit) -> set[int | None]:
    agenda_fields = {"agenda_title", "agenda_notes", "outcome_notes"}
    return {hit.ref_of(match) for match in hit.ranked.matches if match.field in agenda_fields}


RECALL = [
    # (query, expected top meeting, agenda item the match must point at, field that matched)
    ("budget aproval", 101, 1001, "agenda_title"),
    ("approval of the budget", 101, 1001, "agenda_title"),
    ("what did we decide about hiring", 103, 1031, "outcome_notes"),
    ("meeting with the design team", 106, None, "participants"),
    ("muller", 105, None, "author"),
]


@pytest.mark.parametrize(("query", "top", "item", "field"), RECALL, ids=[r[0] for r in RECALL])
async def test_recall_table(
    sandbox: SandboxHandle, query: str, top: int, item: int | None, field: str
) -> None:
    async with live_searcher(sandbox) as (searcher, _):
        outcome = await searcher.search(request("meeting", query))
    assert outcome.degraded is False
    assert outcome.hits, f"{query!r} found nothing"
    best = outcome.hits[0]
    assert best.record.id == top
    assert field in best.matched_fields
    if item is not None:
        assert item in agenda_refs(best)
    # Every candidate fit in the enrichment window: the corpus was read in full.
    assert outcome.enrichment_calls == outcome.candidates


ENVELOPE = [
    # (query, matchType of the top result, the agenda item it lists first, or None)
    ("budget aproval", "agenda_item", "Approval of Q3 budget"),
    ("approval of the budget", "agenda_item", "Approval of Q3 budget"),
    ("what did we decide about hiring", "agenda_item", "Hiring plan"),
    ("meeting with the design team", "participant", None),
    # Anna Müller also attends: participants (1.0) outweigh author (0.5) as the best field.
    ("muller", "participant", None),
]


@pytest.mark.parametrize(("query", "match_type", "item"), ENVELOPE, ids=[e[0] for e in ENVELOPE])
async def test_live_hits_make_the_spec_meeting_results(
    sandbox: SandboxHandle, query: str, match_type: str, item: str | None
) -> None:
    """The live hits, shaped by the service's one result builder, carry score,
    matchedFields, matchType and the matched agenda items of spec §3.1."""
    async with live_searcher(sandbox) as (searcher, _):
        outcome = await searcher.search(request("meeting", query))
    builder = ResultBuilder(parse_query(query))
    top = builder.build([ScoredHit(hit.record, hit.ranked) for hit in outcome.hits])[0]
    assert top.match_type == match_type
    assert top.score == outcome.hits[0].score > 0
    assert top.matched_fields == outcome.hits[0].matched_fields
    if item is not None:
        assert top.matched_agenda_items
        assert top.matched_agenda_items[0].title == item


EXACT_QUERIES = {
    "meeting": ["budget", "Q3", "Design Team", "müller", "zoom", "MOVE POSTPONED", "nothing here"],
    "work_package": ["pool", "memory leak", "Session cookie", "tokio runtime", "02:00", "x y z"],
    "wiki_page": ["new joiners", "café", "Straße", "deploy", "onboarding checklist"],
}


@pytest.mark.parametrize(
    ("kind", "needle"),
    [(kind, needle) for kind, needles in EXACT_QUERIES.items() for needle in needles],
)
async def test_exact_mode_is_case_insensitive_containment(
    sandbox: SandboxHandle, kind: str, needle: str
) -> None:
    async with live_searcher(sandbox) as (searcher, _):
        outcome = await searcher.search(request(kind, needle, match_mode="exact"))
    found = sorted(hit.record.id for hit in outcome.hits)
    assert found == containment_ids(kind, needle)  # type: ignore[arg-type]
    assert all(hit.ranked.matches for hit in outcome.hits)


@pytest.mark.parametrize(("kind", "needle"), [("work_package", "ok"), ("meeting", "q3")])
async def test_queries_under_three_characters_use_containment(
    sandbox: SandboxHandle, kind: str, needle: str
) -> None:
    async with live_searcher(sandbox) as (searcher, _):
        outcome = await searcher.search(request(kind, needle))
    assert sorted(hit.record.id for hit in outcome.hits) == containment_ids(kind, needle)  # type: ignore[arg-type]
    assert outcome.hits
