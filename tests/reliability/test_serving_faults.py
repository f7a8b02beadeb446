"""Faults while ``opindex serve`` (HTTP, with its background sync daemon) is serving.

The daemon's sync fails or is cut short by SIGTERM; the server keeps answering from the
last good index, says so, and shuts down cleanly.
"""

from __future__ import annotations

import asyncio
import json
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from tests.reliability.conftest import index_snapshot, run_outcomes
from tests.support.clock import Clock
from tests.support.config_files import write_config
from tests.support.corpora import BOB, PROJECT_MARKERS, expected_all
from tests.support.mcp_clients import bearer, http_client, result_ids, structured
from tests.support.processes import http_server_process, wait_until
from tests.support.sandbox import MEMBER_KEY, running_sandbox

from opindex.config import load_config
from opindex.sync import sync_tenant, tenant_status

MARKER = PROJECT_MARKERS[1]

pytestmark = pytest.mark.slow


AN_HOUR_AGO = Clock(offset=timedelta(hours=-1))
"""The clock of the first sync: with ``max_staleness_seconds=1`` the index it leaves is stale
the moment the server starts (no waiting on the real clock)."""


def _wait_for_run(data_dir: Path, count: int) -> None:
    def finished() -> bool:
        try:
            outcomes = run_outcomes(data_dir)
        except Exception:  # the state database may be mid-write: look again
            return False
        return len(outcomes) >= count and outcomes[-1] != "running"

    wait_until(finished, "the daemon's sync to finish")


async def test_a_failing_background_sync_leaves_the_server_answering_from_the_last_index(
    corpus: dict[str, Any], tmp_path: Path
) -> None:
    with running_sandbox(corpus, wiki_list=True) as sandbox:
        # Stale at once, so the daemon syncs as soon as the server starts.
        config_path = write_config(
            tmp_path, [("acme", sandbox, MEMBER_KEY)], max_staleness_seconds=1
        )
        config = load_config(config_path)
        await sync_tenant(config.tenants[0], config.data_dir, clock=AN_HOUR_AGO)
        before = index_snapshot(config.data_dir)
        sandbox.mutate("upsert", "work_packages", {"id": 4, "subject": "Never indexed"})
        sandbox.fault("/api/v3/work_packages/4/activities", status=500, count=1000)
        sandbox.fault("/api/v3/work_packages", status=500, count=1000)
        with http_server_process(config_path) as url:  # with the sync daemon
            _wait_for_run(config.data_dir, 2)
            async with http_client(url, bearer(MEMBER_KEY)) as client:
                search = await client.call_tool(
                    "openproject_search_work_packages", {"query": MARKER}
                )
                status = await client.call_tool("openproject_index_status", {})
        sandbox.clear_faults()
    assert run_outcomes(config.data_dir) == ["succeeded", "failed"]
    assert index_snapshot(config.data_dir) == before
    meta = structured(search)["meta"]
    # The live path fails with the same 500s: the stale index answers and says so.
    assert meta["source"] == "index" and meta["indexState"] == "stale"
    marker_ids = {i for i in expected_all(corpus, BOB)["work_package"] if i % 4 == 0}
    assert set(result_ids(search)) == marker_ids
    reported = structured(status)["tenants"][0]
    assert reported["state"] == "stale" and "500" in reported["lastError"]
    assert reported["backgroundSyncSeconds"] == 900


def test_sigterm_during_a_background_sync_stops_cleanly_and_keeps_the_index(
    corpus: dict[str, Any], tmp_path: Path
) -> None:
    with running_sandbox(corpus, wiki_list=True) as sandbox:
        config_path = write_config(
            tmp_path, [("acme", sandbox, MEMBER_KEY)], max_staleness_seconds=1
        )
        config = load_config(config_path)
        asyncio.run(sync_tenant(config.tenants[0], config.data_dir, clock=AN_HOUR_AGO))
        before = index_snapshot(config.data_dir)
        sandbox.mutate("upsert", "work_packages", {"id": 4, "subject": "Never indexed"})
        stalled = "/api/v3/work_packages/4/activities"
        sandbox.fault(stalled, hang=120)
        exit_codes: list[int] = []
        with http_server_process(config_path, exit_codes=exit_codes):
            wait_until(lambda: sandbox.stats()["by_path"].get(stalled, 0) > 0, "the stall")
        # http_server_process sent SIGTERM while the sync hung: the server stopped by itself.
        assert exit_codes == [0]
        sandbox.clear_faults()
    assert index_snapshot(config.data_dir) == before
    outcomes = run_outcomes(config.data_dir)
    assert outcomes == ["succeeded", "interrupted"]
    status = tenant_status(config.tenants[0], config.data_dir)
    assert status.syncing is None and status.last_error is not None
    assert json.dumps(status.to_json())  # still a readable status
