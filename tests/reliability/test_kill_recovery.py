"""SIGKILL during a sync and during a rebuild, as real ``opindex`` processes.

The victim stalls on a hanging request after it has written pages of documents to the
index writer; it is then killed. Afterwards readers still see the last good index,
searches answer from it, ``status`` reports the interrupted run, and the next sync or
rebuild completes with every document present exactly once.
"""

from __future__ import annotations

import asyncio
import copy
import json
import subprocess
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from tests.reliability.conftest import assert_exactly_once, index_snapshot, run_outcomes
from tests.support.clock import Clock
from tests.support.config_files import write_config
from tests.support.corpora import BOB, PROJECT_MARKERS, expected_all
from tests.support.processes import opindex_argv, subprocess_env, wait_until
from tests.support.sandbox import MEMBER_KEY, SandboxHandle, running_sandbox
from tests.support.synced_tenant import sync

from opindex import cli
from opindex.config import load_config
from opindex.envelope import SearchRequest
from opindex.service import Service
from opindex.state import is_locked
from opindex.sync import index_directory

STALLED = "/api/v3/work_packages/5/activities"
"""Work package 5 is changed before the victim runs, so it is read last (newest)."""

SWEEP_EVERY_RUN: dict[str, Any] = {"deletion_sweep_interval_seconds": 1}
"""Deletions are reconciled by a periodic sweep; here every run sweeps (see _first_sync)."""

pytestmark = pytest.mark.slow


def _change(sandbox: SandboxHandle, corpus: dict[str, Any]) -> dict[str, Any]:
    """Retitle 5, delete work package 8 and meeting 2; returns the corpus as it is now."""
    live = copy.deepcopy(corpus)
    sandbox.mutate("upsert", "work_packages", {"id": 5, "subject": "Changed before the kill"})
    sandbox.mutate("delete", "work_packages", {"id": 8})
    live["work_packages"] = [wp for wp in live["work_packages"] if wp["id"] != 8]
    sandbox.mutate("delete", "meetings", {"id": 2})
    live["meetings"] = [m for m in live["meetings"] if m["id"] != 2]
    return live


def _first_sync(config_path: Path) -> None:
    """The first, good sync, stamped ten minutes ago: the next run's deletion sweep is due
    however fast the test runs, and the index is still fresh (younger than an hour)."""
    sync(load_config(config_path), clock=Clock(offset=timedelta(minutes=-10)))


def _search_ids(config_path: Path, query: str) -> set[int]:
    """Work packages the service finds for ``query`` in the index."""

    async def search() -> set[int]:
        async with Service.from_config(load_config(config_path)) as service:
            request = SearchRequest(kind="work_package", query=query, source="index", limit=100)
            response = await service.search(request)
        return {result.id for result in response.results}

    return asyncio.run(search())


def _kill_while_stalled(sandbox: SandboxHandle, argv: list[str], data_dir: Path) -> None:
    """Run ``argv``, wait until it hangs on STALLED, check the lock, SIGKILL it."""
    sandbox.fault(STALLED, hang=120)
    sandbox.reset_stats()
    victim = subprocess.Popen(
        argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=subprocess_env()
    )
    try:
        wait_until(lambda: sandbox.stats()["by_path"].get(STALLED, 0) > 0, "the victim to stall")
        assert is_locked(data_dir, "acme")
    finally:
        victim.kill()
        victim.wait(timeout=30)
    assert victim.returncode == -9
    sandbox.clear_faults()


def _status(config_path: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    capsys.readouterr()
    assert cli.main(["status", "--config", str(config_path), "--json"]) == cli.EXIT_OK
    entry: dict[str, Any] = json.loads(capsys.readouterr().out)["tenants"][0]
    return entry


def test_sigkill_during_sync(
    corpus: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with running_sandbox(corpus, page_size_max=5, wiki_list=True) as sandbox:
        config = write_config(tmp_path, [("acme", sandbox, MEMBER_KEY)], **SWEEP_EVERY_RUN)
        data_dir = tmp_path / "data"
        _first_sync(config)
        before = index_snapshot(data_dir)
        marker_hits = _search_ids(config, PROJECT_MARKERS[2])
        live = _change(sandbox, corpus)

        argv = opindex_argv("sync", "--config", str(config))
        _kill_while_stalled(sandbox, argv, data_dir)

        assert not is_locked(data_dir, "acme")  # the OS released the lock with the process
        assert index_snapshot(data_dir) == before  # uncommitted writes died with it
        assert _search_ids(config, PROJECT_MARKERS[2]) == marker_hits
        status = _status(config, capsys)
        assert status["state"] == "fresh" and status["last_run"]["outcome"] == "running"
        assert "interrupted" in status["last_error"]

        assert cli.main(["sync", "--config", str(config), "--quiet"]) == cli.EXIT_OK

    after = index_snapshot(data_dir)
    assert_exactly_once(after, expected_all(live, BOB))
    assert after["titles"][5] == "Changed before the kill"
    assert run_outcomes(data_dir) == ["succeeded", "interrupted", "succeeded"]
    assert _status(config, capsys)["last_error"] is None


@pytest.mark.parametrize("recovery", ["rebuild", "sync"])
def test_sigkill_during_rebuild(
    corpus: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str], recovery: str
) -> None:
    with running_sandbox(corpus, page_size_max=5, wiki_list=True) as sandbox:
        config = write_config(tmp_path, [("acme", sandbox, MEMBER_KEY)], **SWEEP_EVERY_RUN)
        data_dir = tmp_path / "data"
        _first_sync(config)
        directory = index_directory(data_dir, "acme")
        first = directory.current()
        before = index_snapshot(data_dir)
        live = _change(sandbox, corpus)

        argv = opindex_argv("rebuild", "--config", str(config), "--tenant", "acme")
        _kill_while_stalled(sandbox, argv, data_dir)

        assert directory.current() == first  # the half-built generation was never published
        assert index_snapshot(data_dir) == before
        assert _search_ids(config, PROJECT_MARKERS[1]) == {
            i for i in expected_all(corpus, BOB)["work_package"] if i % 4 == 0
        }
        assert "interrupted" in _status(config, capsys)["last_error"]

        command = ["rebuild", "--tenant", "acme"] if recovery == "rebuild" else ["sync"]
        assert cli.main([command[0], "--config", str(config), "--quiet", *command[1:]]) == 0

    assert_exactly_once(index_snapshot(data_dir), expected_all(live, BOB))
    assert run_outcomes(data_dir) == ["succeeded", "interrupted", "succeeded"]
    assert directory.generations() == [directory.current()]  # nothing half-built left behind
