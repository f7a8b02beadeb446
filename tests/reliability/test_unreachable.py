"""OpenProject unreachable (the sandbox process is stopped): searches and reads are served
from the existing index, labelled stale once it is older than max_staleness; syncs fail
and are recorded without touching the index."""

from __future__ import annotations

import asyncio
import threading
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from tests.reliability.conftest import index_snapshot, run_outcomes
from tests.support.clock import Clock
from tests.support.config_files import write_config
from tests.support.corpora import BOB, PROJECT_MARKERS, expected_all
from tests.support.mcp_clients import in_process_client, result_ids, result_text, structured
from tests.support.sandbox import MEMBER_KEY, running_sandbox

from opindex import cli
from opindex.config import load_config
from opindex.envelope import SearchRequest
from opindex.errors import UpstreamUnavailableError
from opindex.service import Service
from opindex.sync import sync_tenant, tenant_status

MARKER = PROJECT_MARKERS[1]


def _marker_ids(corpus: dict[str, Any]) -> set[int]:
    return {i for i in expected_all(corpus, BOB)["work_package"] if i % 4 == 0}


@pytest.fixture(scope="module")
def stopped(
    corpus: dict[str, Any], tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, dict[str, Any]]:
    """A config whose tenant was synced from a sandbox that is now stopped (SIGKILL)."""
    directory = tmp_path_factory.mktemp("unreachable")
    with running_sandbox(corpus, wiki_list=True) as sandbox:
        config_path = write_config(directory, [("acme", sandbox, MEMBER_KEY)])
        config = load_config(config_path)
        asyncio.run(sync_tenant(config.tenants[0], config.data_dir))
        sandbox.kill()
    return config_path, index_snapshot(config.data_dir)


async def _search(config_path: Path, clock: Clock, source: str = "auto") -> Any:
    async with Service.from_config(load_config(config_path), clock=clock) as service:
        request = SearchRequest(kind="work_package", query=MARKER, source=source)  # type: ignore[arg-type]
        return await service.search(request)


async def test_fresh_index_answers_without_openproject(
    stopped: tuple[Path, dict[str, Any]], corpus: dict[str, Any]
) -> None:
    response = await _search(stopped[0], Clock())
    assert response.meta.source == "index" and response.meta.index_state == "fresh"
    assert {result.id for result in response.results} == _marker_ids(corpus)


async def test_stale_index_answers_labelled_stale_when_openproject_is_unreachable(
    stopped: tuple[Path, dict[str, Any]], corpus: dict[str, Any], caplog: pytest.LogCaptureFixture
) -> None:
    config_path, _ = stopped
    late = Clock(offset=timedelta(hours=2))  # max_staleness is one hour
    response = await _search(config_path, late)
    assert response.meta.source == "index" and response.meta.index_state == "stale"
    assert response.meta.age_seconds is not None and response.meta.age_seconds > 3600
    assert any("could not be reached" in note for note in response.meta.notes)
    assert {result.id for result in response.results} == _marker_ids(corpus)

    async with Service.from_config(load_config(config_path), clock=late) as service:
        request = SearchRequest(kind="work_package", query=MARKER)
        first = await service.search(request)
        assert "retrying" in caplog.text
        caplog.clear()
        # the outage is remembered: the next search does not spend the retry budget again
        second = await service.search(request)
        assert "retrying" not in caplog.text
        assert second.meta.notes == first.meta.notes
        assert [r.id for r in second.results] == [r.id for r in first.results]
        read = await service.get_record("acme", "work_package", 4)
        assert read.record.id == 4 and read.meta.source == "index"
        assert read.meta.index_state == "stale" and read.meta.notes
        with pytest.raises(UpstreamUnavailableError):
            await service.search(SearchRequest(kind="work_package", query=MARKER, source="live"))


def test_search_tool_says_stale_when_the_index_ages_past_max_staleness(
    stopped: tuple[Path, dict[str, Any]], corpus: dict[str, Any]
) -> None:
    config_path, _ = stopped
    config = load_config(config_path)
    late = Clock(offset=timedelta(hours=2))  # max_staleness is one hour
    with in_process_client(config, clock=late) as client:
        result = client.call("openproject_search_work_packages", {"query": MARKER})
        meta = structured(result)["meta"]
        assert meta["source"] == "index" and meta["indexState"] == "stale"
        assert set(result_ids(result)) == _marker_ids(corpus)
        assert "stale index" in result_text(result)
        live = client.call("openproject_search_work_packages", {"query": MARKER, "source": "live"})
        assert live.is_error and "could not answer" in result_text(live)


def test_sync_against_a_stopped_server_fails_cleanly_and_keeps_the_index(
    stopped: tuple[Path, dict[str, Any]], capsys: pytest.CaptureFixture[str]
) -> None:
    config_path, before = stopped
    data_dir = load_config(config_path).data_dir
    assert cli.main(["sync", "--config", str(config_path), "--quiet"]) == cli.EXIT_UPSTREAM
    err = capsys.readouterr().err
    assert "could not be reached" in err and "Traceback" not in err
    assert index_snapshot(data_dir) == before
    assert run_outcomes(data_dir)[-1] == "failed"
    status = tenant_status(load_config(config_path).tenants[0], data_dir)
    assert status.freshness == "fresh" and status.last_error is not None
    assert "UpstreamUnavailableError" in status.last_error


def test_openproject_vanishing_in_the_middle_of_a_sync(
    corpus: dict[str, Any], tmp_path: Path
) -> None:
    """The server is killed while a sync waits on it: the run fails as unreachable, the
    index and marks stay as they were, and the sync completes once it is back."""
    with running_sandbox(corpus, wiki_list=True, page_size_max=5) as sandbox:
        config = load_config(write_config(tmp_path, [("acme", sandbox, MEMBER_KEY)]))
        tenant = config.tenants[0]
        asyncio.run(sync_tenant(tenant, config.data_dir))
        before = index_snapshot(config.data_dir)
        sandbox.mutate("upsert", "work_packages", {"id": 4, "subject": "Changed, then lost"})
        sandbox.fault("/api/v3/work_packages/4/activities", hang=60)

        def kill_when_stalled() -> None:
            stalled = "/api/v3/work_packages/4/activities"
            deadline = time.monotonic() + 60
            while sandbox.stats()["by_path"].get(stalled, 0) == 0:
                if time.monotonic() > deadline:
                    break
                time.sleep(0.05)
            sandbox.kill()

        killer = threading.Thread(target=kill_when_stalled)
        killer.start()
        with pytest.raises(UpstreamUnavailableError):
            asyncio.run(sync_tenant(tenant, config.data_dir))
        killer.join(timeout=60)
    assert index_snapshot(config.data_dir) == before
    assert run_outcomes(config.data_dir)[-1] == "failed"
    with running_sandbox(corpus, wiki_list=True) as back:  # the same corpus, a new address
        moved = load_config(write_config(tmp_path, [("acme", back, MEMBER_KEY)]))
        asyncio.run(sync_tenant(moved.tenants[0], moved.data_dir))
    assert index_snapshot(config.data_dir)["titles"] == before["titles"]
    assert run_outcomes(config.data_dir)[-1] == "succeeded"
