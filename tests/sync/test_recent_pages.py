"""Incremental runs read the newest-first pages and the count; the listing only when needed."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from tests.support.clock import Clock
from tests.support.config_files import make_tenant
from tests.support.corpora import expected_ids, user_of
from tests.support.sandbox import MEMBER_KEY, SandboxHandle, running_sandbox
from tests.sync.conftest import indexed_ids

from opindex.config import TenantConfig
from opindex.state import StateStore
from opindex.sync import sync_tenant
from opindex.sync.manifest import RecentPages, unseen_change

PAGE = 5  # the sandbox's largest page: member bob's 30 work packages take 6 pages
LISTING = 6
SWEEP = 3600
OLD = "2026-01-10T08:00:00Z"  # before every date of the sample corpus


@pytest.fixture
def small_pages(corpus: dict[str, Any]) -> Iterator[SandboxHandle]:
    with running_sandbox(corpus, page_size_max=PAGE, wiki_list=True) as handle:
        yield handle


def _tenant(sandbox: SandboxHandle) -> TenantConfig:
    return make_tenant(sandbox, MEMBER_KEY, deletion_sweep_interval_seconds=SWEEP)


def _list_requests(sandbox: SandboxHandle) -> int:
    return int(sandbox.stats()["by_path"].get("/api/v3/work_packages", 0))


async def test_an_unchanged_run_reads_one_page_however_many_the_listing_has(
    small_pages: SandboxHandle, corpus: dict[str, Any], data_dir: Path, clock: Clock
) -> None:
    tenant = _tenant(small_pages)
    await sync_tenant(tenant, data_dir, clock=clock)
    visible = expected_ids(corpus, user_of(corpus, MEMBER_KEY), "work_package")
    assert -(-len(visible) // PAGE) == LISTING

    small_pages.reset_stats()
    report = await sync_tenant(tenant, data_dir, clock=clock)

    assert _list_requests(small_pages) == 1
    assert report.counts == {}
    assert set(indexed_ids(data_dir, "acme", "work_package")) == visible
    with StateStore.for_tenant(data_dir, "acme") as state:
        summary = state.get_manifest_summary()
    assert summary is not None and summary.listed == len(visible)


async def test_every_change_since_the_mark_is_read_past_the_first_page_and_a_future_record(
    small_pages: SandboxHandle, data_dir: Path, clock: Clock
) -> None:
    tenant = _tenant(small_pages)
    await sync_tenant(tenant, data_dir, clock=clock)
    small_pages.mutate("upsert", "work_packages", {"id": 4, "updatedAt": "2027-02-01T00:00:00Z"})
    await sync_tenant(tenant, data_dir, clock=clock)
    changed = [1, 2, 5, 6, 8, 9, 10, 12]  # more than a page, below the future-dated one
    for wp_id in changed:
        small_pages.mutate("upsert", "work_packages", {"id": wp_id, "subject": f"Kelp {wp_id}"})
    small_pages.reset_stats()

    report = await sync_tenant(tenant, data_dir, clock=clock)

    assert report.counts["work_package"].upserted == len(changed)
    # Newest first: the future record and 8 changes fill 2 pages; the third reaches the mark.
    pages = _list_requests(small_pages) - 1  # one ``id =`` query fetches the eight
    assert pages == -(-(len(changed) + 1) // PAGE) + 1 < LISTING
    with StateStore.for_tenant(data_dir, "acme") as state:
        for wp_id in changed:
            known = state.get_known("work_package", wp_id)
            assert known is not None and known.updated_at is not None


async def test_a_count_that_moved_takes_the_whole_listing_in_the_same_run(
    small_pages: SandboxHandle, corpus: dict[str, Any], data_dir: Path, clock: Clock
) -> None:
    tenant = _tenant(small_pages)
    await sync_tenant(tenant, data_dir, clock=clock)
    visible = expected_ids(corpus, user_of(corpus, MEMBER_KEY), "work_package")
    small_pages.mutate("delete", "work_packages", {"id": 20})  # an old record, deep down
    small_pages.reset_stats()

    report = await sync_tenant(tenant, data_dir, clock=clock)

    assert report.counts["work_package"].deleted == 1
    assert set(indexed_ids(data_dir, "acme", "work_package")) == visible - {20}
    # The recent page, the listing, one ``id =`` query confirming 20 is gone.
    assert _list_requests(small_pages) == 1 + LISTING + 1


async def test_a_record_gone_while_an_old_one_came_into_sight_waits_for_the_sweep_interval(
    small_pages: SandboxHandle, corpus: dict[str, Any], data_dir: Path, clock: Clock
) -> None:
    """The one case the count cannot see: the documented bound is the sweep interval."""
    tenant = _tenant(small_pages)
    await sync_tenant(tenant, data_dir, clock=clock)
    visible = expected_ids(corpus, user_of(corpus, MEMBER_KEY), "work_package")
    small_pages.mutate("delete", "work_packages", {"id": 20})
    imported = {"id": 900, "project": 1, "subject": "Imported tundra", "type": 1, "status": 1}
    small_pages.mutate("upsert", "work_packages", {**imported, "author": 1, "updatedAt": OLD})

    await sync_tenant(tenant, data_dir, clock=clock)
    assert set(indexed_ids(data_dir, "acme", "work_package")) == visible  # not seen yet

    clock.advance(seconds=SWEEP)
    small_pages.reset_stats()
    report = await sync_tenant(tenant, data_dir, clock=clock)

    assert set(indexed_ids(data_dir, "acme", "work_package")) == visible - {20} | {900}
    assert report.counts["work_package"].deleted == 1
    assert report.counts["work_package"].upserted == 1
    assert _list_requests(small_pages) >= LISTING  # the listing, not the recent page


async def test_a_move_out_of_sight_is_gone_after_the_next_run(
    small_pages: SandboxHandle, corpus: dict[str, Any], data_dir: Path, clock: Clock
) -> None:
    tenant = _tenant(small_pages)
    await sync_tenant(tenant, data_dir, clock=clock)
    visible = expected_ids(corpus, user_of(corpus, MEMBER_KEY), "work_package")
    small_pages.mutate("upsert", "work_packages", {"id": 8, "project": 4})  # admin's alone

    report = await sync_tenant(tenant, data_dir, clock=clock)

    assert report.counts["work_package"].deleted == 1
    assert set(indexed_ids(data_dir, "acme", "work_package")) == visible - {8}


async def test_a_mark_ahead_of_the_server_clock_takes_the_whole_listing(
    small_pages: SandboxHandle, corpus: dict[str, Any], data_dir: Path, clock: Clock
) -> None:
    """A mark written by an older version (the newest ``updatedAt`` seen) may lie ahead."""
    tenant = _tenant(small_pages)
    await sync_tenant(tenant, data_dir, clock=clock)
    with StateStore.for_tenant(data_dir, "acme") as state:
        state.set_high_water("work_packages", datetime.fromisoformat("2027-06-01T00:00:00+00:00"))
    small_pages.reset_stats()

    await sync_tenant(tenant, data_dir, clock=clock)

    assert _list_requests(small_pages) == 1 + LISTING
    with StateStore.for_tenant(data_dir, "acme") as state:
        mark = state.get_high_water("work_packages")
    assert mark is not None and mark < datetime.now(UTC)


def _pages(total: int, *ids: int) -> RecentPages:
    when = datetime(2026, 12, 1, tzinfo=UTC)
    return RecentPages(dict.fromkeys(ids, when), total, when)


def test_the_count_tells_a_vanished_or_unseen_record_from_none() -> None:
    known = dict.fromkeys([1, 2, 3], object())
    assert not unseen_change(_pages(3, 3), known)  # a change to a known record
    assert not unseen_change(_pages(4, 3, 4), known)  # a new record, on the recent page
    assert unseen_change(_pages(2, 3), known)  # one vanished
    assert unseen_change(_pages(4, 3), known)  # one came into sight below the mark
    assert unseen_change(_pages(3, 3, 4), known)  # a new one, while one vanished
