"""Wiki discovery and ranking over HTTP: gaps, budget, list endpoint, TTL, tenant keys."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from live_support import (
    WIKI_LIST,
    WIKI_PAGE,
    count_paths,
    distinct_paths,
    live_searcher,
    request,
)
from tests.support.sandbox import (
    ADMIN_KEY,
    OUTSIDER_KEY,
    CorpusBuilder,
    SandboxHandle,
    running_sandbox,
)

from opindex.errors import InvalidArgumentError
from opindex.live import WikiDirectoryCache, WikiDiscoverySettings, tenant_cache_key

PAGE_IDS = [3, 4, 60, 61, 140]  # gaps of 55 and 78 missing ids
HR_PAGE = 5  # project 2 ("hr"): the outsider account is not a member
NEAR = WikiDiscoverySettings(miss_run_limit=16)
"""Cheap settings for tests not about gaps: ids 1..32 are probed, pages 3-5 found."""


def cache_for(handle: SandboxHandle, api_key: str = ADMIN_KEY, **settings: Any) -> dict[str, Any]:
    """live_searcher options for a fresh cache with the NEAR bounds (overridable)."""
    merged = {"miss_run_limit": NEAR.miss_run_limit, **settings}
    return {
        "wiki_cache": WikiDirectoryCache(WikiDiscoverySettings(**merged)),
        "tenant_key": tenant_cache_key(handle.base_url, api_key),
    }


def corpus() -> dict[str, Any]:
    builder = CorpusBuilder()
    titles = {
        3: "Runbook",
        4: "Budget approval workflow",
        60: "Release process",
        61: "Incident response",
        140: "Onboarding checklist",
    }
    for page_id in PAGE_IDS:
        builder.add_wiki_page(page_id, title=titles[page_id], text=f"How we do it, page {page_id}.")
    builder.add_wiki_page(
        HR_PAGE, project=2, title="Salary bands", text="Confidential hiring budget."
    )
    return builder.build()


@pytest.fixture(scope="module")
def probing() -> Iterator[SandboxHandle]:
    with running_sandbox(corpus()) as handle:
        yield handle


@pytest.fixture(scope="module")
def listing() -> Iterator[SandboxHandle]:
    with running_sandbox(corpus(), wiki_list=True) as handle:
        yield handle


@pytest.fixture(autouse=True)
def fresh_stats(probing: SandboxHandle) -> None:
    probing.clear_faults()
    probing.reset_stats()


def probed_ids(stats: dict[str, Any]) -> list[int]:
    return sorted(int(path.rsplit("/", 1)[1]) for path in distinct_paths(stats, WIKI_PAGE))


async def test_probing_finds_pages_across_gaps_and_beyond_id_50(probing: SandboxHandle) -> None:
    async with live_searcher(probing, api_key=OUTSIDER_KEY) as (searcher, _):
        outcome = await searcher.search(request("wiki_page", ""))
    assert [hit.record.id for hit in outcome.hits] == PAGE_IDS
    assert outcome.degraded is False
    probed = probed_ids(probing.stats())
    # Ids are walked in batches of 16 until 100 misses follow the last page (140).
    assert probed == list(range(1, 241))
    # identity check + one try of the list endpoint (absent: 404) + the probes
    assert outcome.requests == 1 + 1 + 240
    assert probing.stats()["by_path"]["/api/v3/wiki_pages"] == 1


async def test_ranking_over_discovered_pages(probing: SandboxHandle) -> None:
    async with live_searcher(probing, **cache_for(probing)) as (searcher, _):
        outcome = await searcher.search(request("wiki_page", "budget aproval"))
    assert [hit.record.id for hit in outcome.hits][:1] == [4]
    assert outcome.hits[0].matched_fields[0] == "title"


async def test_a_second_search_reuses_the_directory(probing: SandboxHandle) -> None:
    async with live_searcher(probing, **cache_for(probing)) as (searcher, _):
        await searcher.search(request("wiki_page", "runbook"))
        probing.reset_stats()
        again = await searcher.search(request("wiki_page", "approval"))
    assert [hit.record.id for hit in again.hits] == [4]
    assert probing.stats()["requests"] == 0


async def test_discovery_continues_across_searches_within_its_budget(
    probing: SandboxHandle,
) -> None:
    settings = WikiDiscoverySettings(probe_budget=48, batch_size=16)
    cache = WikiDirectoryCache(settings)
    key = tenant_cache_key(probing.base_url, ADMIN_KEY)
    found: list[list[int]] = []
    degraded: list[bool] = []
    async with live_searcher(probing, wiki_cache=cache, tenant_key=key) as (searcher, _):
        for _ in range(6):
            outcome = await searcher.search(request("wiki_page", "", project_id=1))
            found.append([hit.record.id for hit in outcome.hits])
            degraded.append(outcome.degraded)
            if not outcome.degraded:
                break
    assert found[0] == [3, 4]
    assert found[1] == [3, 4, 60, 61]
    assert found[-1] == PAGE_IDS
    assert degraded[:-1] == [True] * (len(degraded) - 1)
    assert degraded[-1] is False
    stats = probing.stats()
    assert max(probed_ids(stats)) == 240
    assert count_paths(stats, WIKI_PAGE) == 240  # no id probed twice


async def test_gap_longer_than_the_miss_limit_is_the_documented_bound(
    probing: SandboxHandle,
) -> None:
    cache = WikiDirectoryCache(WikiDiscoverySettings(miss_run_limit=60))
    key = tenant_cache_key(probing.base_url, ADMIN_KEY)
    async with live_searcher(probing, wiki_cache=cache, tenant_key=key) as (searcher, _):
        outcome = await searcher.search(request("wiki_page", "", project_id=1))
    # 4 -> 60 (55 missing ids) is crossed; 61 -> 140 (78) is beyond a limit of 60, so the
    # last page stays unseen: the documented bound of one walk.
    assert [hit.record.id for hit in outcome.hits] == [3, 4, 60, 61]


async def test_the_directory_expires_after_its_ttl(probing: SandboxHandle) -> None:
    now = [1000.0]
    settings = WikiDiscoverySettings(ttl_seconds=60, miss_run_limit=NEAR.miss_run_limit)
    cache = WikiDirectoryCache(settings, clock=lambda: now[0])
    key = tenant_cache_key(probing.base_url, ADMIN_KEY)
    new_page = {"id": 7, "project": 1, "title": "Runbook v2", "text": ""}
    try:
        async with live_searcher(probing, wiki_cache=cache, tenant_key=key) as (searcher, _):
            await searcher.search(request("wiki_page", "runbook"))
            first = count_paths(probing.stats(), WIKI_PAGE)
            now[0] += 59
            probing.mutate("upsert", "wiki_pages", new_page)
            cached = await searcher.search(request("wiki_page", "runbook"))
            assert count_paths(probing.stats(), WIKI_PAGE) == first
            now[0] += 2
            expired = await searcher.search(request("wiki_page", "runbook"))
    finally:
        probing.mutate("delete", "wiki_pages", {"id": 7})
    assert count_paths(probing.stats(), WIKI_PAGE) == 2 * first
    assert [hit.record.id for hit in cached.hits] == [3]
    assert sorted(hit.record.id for hit in expired.hits) == [3, 7]


async def test_two_credentials_never_share_discovered_pages(probing: SandboxHandle) -> None:
    cache = WikiDirectoryCache(NEAR)
    admin_key = tenant_cache_key(probing.base_url, ADMIN_KEY)
    outsider_key = tenant_cache_key(probing.base_url, OUTSIDER_KEY)
    assert admin_key != outsider_key
    assert ADMIN_KEY not in admin_key and OUTSIDER_KEY not in outsider_key
    async with live_searcher(probing, wiki_cache=cache, tenant_key=admin_key) as (admin, _):
        seen_by_admin = await admin.search(request("wiki_page", "salary bands"))
    async with live_searcher(
        probing, api_key=OUTSIDER_KEY, wiki_cache=cache, tenant_key=outsider_key
    ) as (outsider, _):
        seen_by_outsider = await outsider.search(request("wiki_page", "salary bands"))
        everything = await outsider.search(request("wiki_page", ""))
    assert [hit.record.id for hit in seen_by_admin.hits] == [HR_PAGE]
    assert seen_by_outsider.hits == []
    assert HR_PAGE not in [hit.record.id for hit in everything.hits]
    assert sorted(cache.tenant_keys()) == sorted([admin_key, outsider_key])


async def test_a_shared_cache_needs_a_tenant_key(probing: SandboxHandle) -> None:
    with pytest.raises(InvalidArgumentError, match="tenant_key"):
        async with live_searcher(probing, wiki_cache=WikiDirectoryCache()):
            pass


async def test_a_failed_probe_is_reported_and_retried(probing: SandboxHandle) -> None:
    probing.fault("/api/v3/wiki_pages/4", status=500, count=1)
    async with live_searcher(probing, **cache_for(probing)) as (searcher, _):
        first = await searcher.search(request("wiki_page", "", project_id=1))
        probing.reset_stats()
        second = await searcher.search(request("wiki_page", "", project_id=1))
    assert first.degraded is True
    assert first.enrichment_failures == 1
    assert any("could not be read" in note for note in first.notes)
    assert [hit.record.id for hit in first.hits] == [3]
    assert second.degraded is False
    assert [hit.record.id for hit in second.hits] == [3, 4]
    assert probing.stats()["by_path"] == {"/api/v3/wiki_pages/4": 1}  # only the retry


async def test_the_list_endpoint_replaces_probing(listing: SandboxHandle) -> None:
    listing.reset_stats()
    async with live_searcher(listing) as (searcher, _):
        outcome = await searcher.search(request("wiki_page", "process"))
        everything = await searcher.search(request("wiki_page", ""))
    stats = listing.stats()
    assert [hit.record.id for hit in outcome.hits] == [60]
    assert sorted(hit.record.id for hit in everything.hits) == sorted([*PAGE_IDS, HR_PAGE])
    assert count_paths(stats, WIKI_PAGE) == 0  # no probing at all
    assert count_paths(stats, WIKI_LIST) == 1


async def test_servers_without_page_text_search_titles_and_say_so() -> None:
    with running_sandbox(corpus(), no_wiki_text=True, wiki_list=True) as handle:
        async with live_searcher(handle) as (searcher, _):
            by_title = await searcher.search(request("wiki_page", "runbook"))
            by_text = await searcher.search(request("wiki_page", "how we do it"))
    assert [hit.record.id for hit in by_title.hits] == [3]
    assert by_text.hits == []
    assert any("text" in note for note in by_text.notes)
    assert by_text.degraded is False
