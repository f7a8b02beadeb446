"""The manifest sync: no clock skew freezes it, deletions and lost visibility go at once."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from tests.support.clock import Clock
from tests.support.config_files import write_config
from tests.support.corpora import expected_ids, user_of
from tests.support.sandbox import MEMBER_KEY, SandboxHandle
from tests.sync.conftest import indexed_ids

from opindex.config import load_config_file
from opindex.envelope import SearchRequest
from opindex.errors import NotFoundError
from opindex.service.facade import Service
from opindex.state import StateStore
from opindex.sync import sync_tenant

FUTURE = "2027-01-15T09:00:00Z"  # about six weeks ahead of the test's run date at most


def _service(directory: Path, sandbox: SandboxHandle) -> Service:
    config = load_config_file(write_config(directory, [("acme", sandbox, MEMBER_KEY)]))
    return Service.from_config(config)


async def _index_search(service: Service, query: str) -> set[int]:
    response = await service.search(
        SearchRequest(kind="work_package", query=query, source="index", fallback=False),
        tenant="acme",
    )
    return {result.id for result in response.results}


async def test_a_future_dated_record_does_not_hide_later_changes(
    sandbox: SandboxHandle, corpus: dict[str, Any], tmp_path: Path, clock: Clock
) -> None:
    config = load_config_file(write_config(tmp_path, [("acme", sandbox, MEMBER_KEY)]))
    tenant, data_dir = config.tenants[0], config.data_dir
    await sync_tenant(tenant, data_dir, clock=clock)
    future = datetime.fromisoformat(FUTURE)
    assert future > datetime.now(UTC) + timedelta(days=1)

    sandbox.mutate("upsert", "work_packages", {"id": 5, "subject": "Imported", "updatedAt": FUTURE})
    first = await sync_tenant(tenant, data_dir, clock=clock)
    assert first.counts["work_package"].upserted == 1
    with StateStore.for_tenant(data_dir, "acme") as state:
        mark = state.get_high_water("work_packages")
        known = state.get_known("work_package", 5)
    assert known is not None and known.updated_at == future  # indexed with its own date
    assert mark is not None and mark < datetime.now(UTC)  # the mark did not follow it

    # Ordinary changes after it, each dated "now" (weeks before the future record).
    sandbox.mutate("upsert", "work_packages", {"id": 6, "subject": "Quartz turbine overhaul"})
    sandbox.mutate("upsert", "work_packages", {"id": 9, "subject": "Basalt gasket refit"})
    new = {"id": 500, "project": 1, "subject": "Granite pump survey", "type": 1, "status": 1}
    sandbox.mutate("upsert", "work_packages", {**new, "author": 1})
    second = await sync_tenant(tenant, data_dir, clock=clock)

    assert second.kind == "incremental"
    assert second.counts["work_package"].upserted == 3
    async with Service.from_config(config) as service:
        assert await _index_search(service, "quartz turbine") == {6}
        assert await _index_search(service, "basalt gasket") == {9}
        assert await _index_search(service, "granite pump") == {500}
        record = await service.get_record("acme", "work_package", 5)
        assert record.record.title == "Imported" and record.meta.source == "index"
    with StateStore.for_tenant(data_dir, "acme") as state:
        later = state.get_high_water("work_packages")
        summary = state.get_manifest_summary()
    assert later is not None and later < datetime.now(UTC)
    assert summary is not None and (summary.added, summary.changed) == (1, 2)
    assert summary.server_time is not None
    assert later == summary.server_time - timedelta(seconds=tenant.sync_safety_margin_seconds)


async def test_deleted_and_no_longer_visible_records_are_gone_after_the_next_run(
    sandbox: SandboxHandle, corpus: dict[str, Any], tmp_path: Path, clock: Clock
) -> None:
    config = load_config_file(write_config(tmp_path, [("acme", sandbox, MEMBER_KEY)]))
    tenant, data_dir = config.tenants[0], config.data_dir
    await sync_tenant(tenant, data_dir, clock=clock)
    bob = user_of(corpus, MEMBER_KEY)
    visible = expected_ids(corpus, bob, "work_package")
    # Work packages 5 and 9 are in project 2 (bob is a member); project 4 is the admin's alone.
    assert {5, 6, 9} <= visible
    sandbox.mutate("upsert", "work_packages", {"id": 5, "subject": "Obsidian ledger"})
    sandbox.mutate("upsert", "work_packages", {"id": 9, "subject": "Obsidian ledger twin"})
    await sync_tenant(tenant, data_dir, clock=clock)
    async with Service.from_config(config) as service:
        assert await _index_search(service, "obsidian ledger") == {5, 9}

    sandbox.mutate("delete", "work_packages", {"id": 9})
    sandbox.mutate("upsert", "work_packages", {"id": 5, "project": 4})  # out of bob's sight
    report = await sync_tenant(tenant, data_dir, clock=clock)  # no sweep interval waited

    assert report.kind == "incremental"
    assert report.counts["work_package"].deleted == 2
    assert set(indexed_ids(data_dir, "acme", "work_package")) == visible - {5, 9}
    async with Service.from_config(config) as service:
        assert await _index_search(service, "obsidian ledger") == set()
        for gone in (5, 9):
            with pytest.raises(NotFoundError):
                await service.get_record("acme", "work_package", gone)
    with StateStore.for_tenant(data_dir, "acme") as state:
        assert state.get_known("work_package", 5) is None
        assert state.get_known("work_package", 9) is None
        summary = state.get_manifest_summary()
    assert summary is not None and summary.removed == 2


async def test_an_unchanged_run_reads_only_the_manifest(
    sandbox: SandboxHandle, tmp_path: Path, clock: Clock
) -> None:
    config = load_config_file(write_config(tmp_path, [("acme", sandbox, MEMBER_KEY)]))
    tenant, data_dir = config.tenants[0], config.data_dir
    await sync_tenant(tenant, data_dir, clock=clock)
    sandbox.reset_stats()
    report = await sync_tenant(tenant, data_dir, clock=clock)
    by_path = sandbox.stats()["by_path"]
    assert by_path["/api/v3/work_packages"] == 1  # one trimmed page lists all of them
    assert not any(path.endswith("/activities") for path in by_path)
    assert report.counts == {}
