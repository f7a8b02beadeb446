"""The two-phase pipeline against a fake enrichment that records timing and failures."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import pytest

from opindex.errors import (
    AuthenticationError,
    InvalidArgumentError,
    NotFoundError,
    OpenProjectError,
    PermissionDeniedError,
    RateLimitedError,
    ServerError,
    UpstreamUnavailableError,
)
from opindex.live.pipeline import (
    EnrichmentBudget,
    EnrichmentMemo,
    PipelineResult,
    shallow_record,
    two_phase_search,
)
from opindex.records import Record
from opindex.search.document import FieldValue, SearchDocument
from opindex.search.query import MatchMode, parse_query

EPOCH = datetime(2026, 1, 1, tzinfo=UTC)


def wp(wp_id: int, subject: str, *, age_days: int, description: str = "") -> Record:
    """A full work package record (subject + description); *age_days* sets updated_at."""
    fields = {"subject": (FieldValue(subject),), "description": (FieldValue(description),)}
    return Record(
        document=SearchDocument(kind="work_package", id=wp_id, fields=fields),
        title=subject,
        updated_at=EPOCH - timedelta(days=age_days),
    )


def recency(record: Record) -> float | None:
    return record.updated_at.timestamp() if record.updated_at else None


class FakeEnrichment:
    """Serves full records after yielding to the loop 1-3 times (so calls overlap and finish
    out of order, without the real clock); counts calls and the peak in flight."""

    def __init__(
        self, full: list[Record], failures: dict[int, OpenProjectError] | None = None
    ) -> None:
        self.full = {record.id: record for record in full}
        self.failures = failures or {}
        self.calls: list[int] = []
        self.in_flight = 0
        self.peak = 0
        self.finished = 0

    async def __call__(self, record: Record) -> Record:
        self.calls.append(record.id)
        self.in_flight += 1
        self.peak = max(self.peak, self.in_flight)
        try:
            for _ in range(1 + record.id % 3):
                await asyncio.sleep(0)
            if record.id in self.failures:
                raise self.failures[record.id]
            return self.full[record.id]
        finally:
            self.in_flight -= 1
            self.finished += 1


def shallow(records: list[Record]) -> list[Record]:
    return [shallow_record(record) for record in records]


async def search(
    full: list[Record],
    query: str,
    fake: FakeEnrichment,
    *,
    memo: EnrichmentMemo | None = None,
    budget: EnrichmentBudget | None = None,
    match_mode: MatchMode = "fuzzy",
) -> PipelineResult:
    return await two_phase_search(
        shallow(full),
        parse_query(query, match_mode),
        kind="work_package",
        enrich=fake,
        recency=recency,
        memo=memo or EnrichmentMemo(),
        budget=budget,
        limit=100,
    )


def hundred_matching() -> list[Record]:
    return [wp(i, f"Budget review {i}", age_days=i) for i in range(1, 101)]


async def test_at_most_eight_enrichments_in_flight_and_25_per_search() -> None:
    records = hundred_matching()
    fake = FakeEnrichment(records)
    result = await search(records, "budget review", fake)
    assert len(fake.calls) == 25
    assert result.enrichment_calls == 25
    assert fake.peak == 8  # the cap is reached, never exceeded
    assert len(result.hits) == 100


async def test_custom_budget_is_honoured() -> None:
    records = hundred_matching()
    fake = FakeEnrichment(records)
    await search(records, "budget", fake, budget=EnrichmentBudget(enrich_limit=10, concurrency=3))
    assert len(fake.calls) == 10
    assert fake.peak == 3


async def test_top_shallow_hits_are_enriched_first() -> None:
    strong = [wp(i, "Budget approval", age_days=500 + i) for i in range(1, 31)]
    weak = [wp(i, f"Unrelated {i}", age_days=i) for i in range(100, 130)]
    fake = FakeEnrichment(strong + weak)
    result = await search(strong + weak, "budget approval", fake)
    # 30 records pass the shallow gate: the 25 best (ties by id) are enriched, no backfill.
    assert sorted(fake.calls) == list(range(1, 26))
    assert result.selected == tuple(range(1, 26))


async def test_backfill_by_recency_when_few_pass_the_shallow_gate() -> None:
    hits = [wp(1, "Hiring plan", age_days=900), wp(2, "Hiring budget", age_days=800)]
    others = [wp(i, f"Task {i}", age_days=i) for i in range(10, 60)]
    # Age grows with id: the most recent non-hits are ids 10..32.
    fake = FakeEnrichment(hits + others)
    result = await search(hits + others, "hiring", fake)
    assert set(fake.calls) == {1, 2, *range(10, 33)}
    assert result.selected[:2] == (1, 2)  # shallow hits first, then the recency backfill


async def test_backfill_finds_a_deep_only_match() -> None:
    target = wp(5, "Quarterly numbers", age_days=1, description="decision on hiring freeze")
    others = [wp(i, f"Task {i}", age_days=10 + i) for i in range(10, 20)]
    fake = FakeEnrichment([target, *others])
    result = await search([target, *others], "hiring freeze", fake)
    assert [record.id for record, _ in result.hits] == [5]
    assert result.hits[0][1].matches[0].field == "description"


async def test_final_score_is_max_of_shallow_and_deep() -> None:
    # Perfect subject match plus a weaker description match: the subject score stands.
    record = wp(1, "Budget approval", age_days=1, description="budget approval again")
    fake = FakeEnrichment([record])
    result = await search([record], "budget approval", fake)
    ranked = result.hits[0][1]
    assert ranked.score == 1.0
    assert [match.field for match in ranked.matches] == ["subject", "description"]


@pytest.mark.parametrize(
    "error",
    [
        AuthenticationError("expired", status=401),
        PermissionDeniedError("scope", status=403),
        RateLimitedError("slow down"),
    ],
    ids=["401", "403", "429"],
)
async def test_fatal_errors_abort_and_propagate(error: OpenProjectError) -> None:
    records = hundred_matching()
    fake = FakeEnrichment(records, failures={3: error})
    with pytest.raises(type(error)):
        await search(records, "budget review", fake)
    # Nothing keeps running after the abort: every started enrichment has already ended
    # when the error reaches the caller (no waiting).
    assert fake.in_flight == 0
    assert fake.finished == len(fake.calls) < 25


@pytest.mark.parametrize(
    "error",
    [
        ServerError("boom", status=500),
        NotFoundError("gone", status=404),
        UpstreamUnavailableError("network"),
    ],
    ids=["500", "404", "network"],
)
async def test_other_failures_degrade_one_record(error: OpenProjectError) -> None:
    records = [
        wp(i, f"Budget review {i}", age_days=i, description="approved by finance")
        for i in range(1, 11)
    ]
    fake = FakeEnrichment(records, failures={4: error})
    result = await search(records, "budget review", fake)
    assert result.degraded is True
    assert result.enrichment_failures == 1
    assert len(fake.calls) == 10
    ids = [record.id for record, _ in result.hits]
    assert sorted(ids) == list(range(1, 11))  # the failed record keeps its shallow score
    failed = next(ranked for record, ranked in result.hits if record.id == 4)
    assert failed.record.fields.keys() == {"subject"}
    kept = next(ranked for record, ranked in result.hits if record.id == 5)
    assert "description" in kept.record.fields


async def test_a_deep_only_record_that_fails_is_not_found_and_degraded() -> None:
    target = wp(1, "Quarterly numbers", age_days=1, description="hiring freeze")
    fake = FakeEnrichment([target], failures={1: ServerError("boom", status=500)})
    result = await search([target], "hiring freeze", fake)
    assert result.hits == []
    assert result.degraded is True  # "nothing matched" is not claimed


async def test_no_match_is_empty_and_not_degraded() -> None:
    records = hundred_matching()[:5]
    fake = FakeEnrichment(records)
    result = await search(records, "kubernetes", fake)
    assert result.hits == []
    assert result.degraded is False
    assert result.enrichment_failures == 0


async def test_empty_query_returns_unranked_candidates_without_enrichment() -> None:
    records = hundred_matching()[:30]
    fake = FakeEnrichment(records)
    result = await search(records, "   ", fake)
    assert fake.calls == []
    assert [record.id for record, _ in result.hits] == list(range(1, 31))
    assert all(ranked.score == 0.0 for _, ranked in result.hits)


async def test_exact_mode_is_containment_over_enriched_content() -> None:
    records = [
        wp(1, "Renew TLS certificate", age_days=1),
        wp(2, "Other", age_days=2, description="the tls cert expires"),
        wp(3, "Certificates", age_days=3),
    ]
    fake = FakeEnrichment(records)
    result = await search(records, "TLS CERT", fake, match_mode="exact")
    # Containment scores 1 per field; the record score is weighted (description 1/3).
    assert [(record.id, ranked.score) for record, ranked in result.hits] == [(1, 1.0), (2, 0.33)]


async def test_a_rerun_reuses_the_memo() -> None:
    records = [wp(i, f"Budget review {i}", age_days=i) for i in range(1, 11)]
    fake = FakeEnrichment(records, failures={2: ServerError("boom", status=500)})
    memo = EnrichmentMemo()
    first = await search(records, "budget review", fake, memo=memo)
    second = await search(records, "budget* review*", fake, memo=memo)
    assert len(fake.calls) == 10  # nothing read twice, the failure not retried
    assert second.enrichment_calls == 0
    assert first.enrichment_failures == second.enrichment_failures == 1


def test_budget_validation() -> None:
    with pytest.raises(InvalidArgumentError):
        EnrichmentBudget(concurrency=0)
    with pytest.raises(InvalidArgumentError):
        EnrichmentBudget(enrich_limit=-1)
