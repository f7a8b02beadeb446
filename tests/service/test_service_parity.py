"""Index path vs live path: same record, same score (invariant 3); and the recall ceiling."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
from tests.support.corpus_builder import ADMIN_KEY, CorpusBuilder
from tests.support.recall_corpus import RECALL_KEY, recall_corpus
from tests.support.synced_tenant import SyncedTenant, synced_tenant

from opindex.envelope import SearchRequest, SearchResponse, SearchResult
from opindex.service import Service

# Every record of the recall corpus fits in the live path's enrichment window (25), so
# the live path reads everything the index holds.
PARITY_QUERIES: tuple[tuple[str, str], ...] = (
    ("work_package", "certifcate renewal"),
    ("work_package", "invoice rounding"),
    ("work_package", "office"),
    ("work_package", "grafana latency dashboard"),
    ("work_package", "upgrade"),
    ("work_package", "Zürich"),
    ("meeting", "budget aproval"),
    ("meeting", "what did we decide about hiring"),
    ("meeting", "design team"),
    ("meeting", "muller"),
    ("meeting", "action items retrospective"),
    ("wiki_page", "recovery"),
    ("wiki_page", "postgres snapshot"),
    ("work_package", "office"),
)


def _view(result: SearchResult) -> dict[str, Any]:
    """What must agree between the paths for one result."""
    return {
        "id": result.id,
        "score": result.score,
        "matched_fields": result.matched_fields,
        "snippet": result.snippet,
        "matches": [(m.field, m.score, m.snippet, m.ref) for m in result.matches],
        "agenda": result.matched_agenda_items,
        "comments": result.matched_comments,
        "title": result.title,
        "project": result.project,
    }


@pytest.fixture(scope="module")
def tenant(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SyncedTenant]:
    with synced_tenant(tmp_path_factory.mktemp("parity"), recall_corpus(), RECALL_KEY) as t:
        yield t


async def _both(service: Service, request: SearchRequest) -> tuple[SearchResponse, SearchResponse]:
    index = await service.search(request.model_copy(update={"source": "index"}))
    live = await service.search(request.model_copy(update={"source": "live"}))
    return index, live


@pytest.mark.parametrize(("kind", "query"), PARITY_QUERIES)
@pytest.mark.parametrize("match_mode", ["fuzzy", "exact"])
async def test_index_and_live_agree_when_live_reads_everything(
    tenant: SyncedTenant, kind: str, query: str, match_mode: str
) -> None:
    request = SearchRequest.model_validate(
        {"kind": kind, "query": query, "match_mode": match_mode, "fallback": False}
    )
    async with Service.from_config(tenant.config) as service:
        index, live = await _both(service, request)
    assert (index.meta.source, live.meta.source) == ("index", "live")
    assert live.meta.degraded is False
    assert [_view(r) for r in index.results] == [_view(r) for r in live.results]
    if match_mode == "fuzzy":
        assert index.results, f"{query!r} should match something"


async def test_parity_holds_for_relaxed_queries(tenant: SyncedTenant) -> None:
    request = SearchRequest(kind="meeting", query="budget aproval zzzunknown qqqmissing")
    async with Service.from_config(tenant.config) as service:
        index, live = await _both(service, request)
    assert index.meta.fallback_strategy is not None
    assert index.meta.fallback_strategy == live.meta.fallback_strategy
    assert index.meta.wildcard_fallback is live.meta.wildcard_fallback is True
    assert index.meta.effective_query == live.meta.effective_query
    assert [_view(r) for r in index.results] == [_view(r) for r in live.results]


def _deep_only_corpus() -> tuple[dict[str, Any], int]:
    """40 recently updated work packages and one old one whose only match is a comment."""
    builder = CorpusBuilder()
    for number in range(40):
        builder.add_work_package(
            100 + number,
            subject=f"Routine maintenance task {number}",
            updatedAt=f"2026-03-{10 + number % 18:02d}T09:00:00Z",
        )
    target = 7
    builder.add_work_package(
        target,
        subject="Lab equipment",
        description="Yearly check of the lab.",
        updatedAt="2025-01-05T09:00:00Z",
        activities=[
            {"id": 7001, "user": 1, "comment": "The flux capacitor needs recalibration."},
        ],
    )
    return builder.build(), target


def test_deep_only_item_outside_the_enrichment_window(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    corpus, target = _deep_only_corpus()
    request = SearchRequest(
        kind="work_package", query="flux capacitor recalibration", fallback=False
    )

    async def both(tenant: SyncedTenant) -> tuple[SearchResponse, SearchResponse]:
        async with Service.from_config(tenant.config) as service:
            return await _both(service, request)

    with synced_tenant(tmp_path_factory.mktemp("deep"), corpus, ADMIN_KEY) as tenant:
        index, live = asyncio.run(both(tenant))
    assert [r.id for r in index.results] == [target]
    assert index.results[0].matched_fields == ["comments"]
    assert index.results[0].matched_comments is not None
    assert [c.id for c in index.results[0].matched_comments] == [7001]
    assert live.results == []  # the live path never read the comment
