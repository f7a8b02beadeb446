"""Faults injected by the sandbox in the middle of real syncs: 500, hangs, 429, 401.

Each run that fails must be recorded as failed with its reason, leave the high-water
marks, the index pointer and every document a reader sees exactly as the last good run
left them, and the next run must complete.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.reliability.conftest import (
    ShortTimeoutTransport,
    assert_exactly_once,
    index_snapshot,
    run_outcomes,
)
from tests.support.clock import Clock
from tests.support.config_files import make_tenant, write_config
from tests.support.corpora import BOB, expected_all
from tests.support.sandbox import MEMBER_KEY, SandboxHandle, running_sandbox

from opindex import cli
from opindex.errors import (
    RateLimitedError,
    ServerError,
    UpstreamUnavailableError,
)
from opindex.state import StateStore
from opindex.sync import index_directory, rebuild_tenant, sync_tenant, tenant_status

CHANGED = (1, 2, 4, 5, 6, 8)
"""Work packages bob sees, changed between the runs: more than one page (page size 5), so the
failing run has written a page to the index before the fault hits."""
FAULTED = "/api/v3/work_packages/8/activities"
"""The activities of the last changed work package: read after a page was written."""


@pytest.fixture(scope="module")
def paged_sandbox(corpus: dict[str, Any]) -> Iterator[SandboxHandle]:
    """Five records per page, wiki list endpoints; shared by this module's tests (each
    changes its own titles)."""
    with running_sandbox(corpus, page_size_max=5, wiki_list=True) as handle:
        yield handle


def _change(sandbox: SandboxHandle, label: str) -> dict[int, str]:
    """Retitle the CHANGED work packages (upsert stamps them now); returns the new titles."""
    titles = {wp_id: f"{label} change {wp_id}" for wp_id in CHANGED}
    for wp_id, title in titles.items():
        sandbox.mutate("upsert", "work_packages", {"id": wp_id, "subject": title})
    return titles


def _state_view(data_dir: Path) -> tuple[Any, Any]:
    with StateStore.for_tenant(data_dir, "acme") as state:
        return state.high_water_marks(), state.get_index_pointer()


def _assert_untouched(data_dir: Path, before: dict[str, Any], state_before: Any) -> None:
    assert index_snapshot(data_dir) == before, "a failed run changed what readers see"
    assert _state_view(data_dir) == state_before, "a failed run moved marks or the pointer"


@pytest.mark.parametrize("full", [False, True], ids=["incremental", "full"])
@pytest.mark.parametrize("fault", ["500", "hang"])
async def test_fault_mid_sync_is_recorded_and_the_next_run_completes(
    paged_sandbox: SandboxHandle,
    corpus: dict[str, Any],
    data_dir: Path,
    clock: Clock,
    full: bool,
    fault: str,
) -> None:
    sandbox = paged_sandbox
    tenant = make_tenant(sandbox, MEMBER_KEY)
    transport = ShortTimeoutTransport(0.5)
    await sync_tenant(tenant, data_dir, clock=clock, transport=transport)
    before, state_before = index_snapshot(data_dir), _state_view(data_dir)
    titles = _change(sandbox, f"{fault}-{full}")
    if fault == "500":
        sandbox.fault(FAULTED, status=500)
        expected_error: type[Exception] = ServerError
    else:  # outlasts every attempt of the retry policy (4 attempts, 0.5 s timeout each)
        sandbox.fault(FAULTED, hang=5, count=4)
        expected_error = UpstreamUnavailableError

    with pytest.raises(expected_error):
        await sync_tenant(tenant, data_dir, full=full, clock=clock, transport=transport)

    _assert_untouched(data_dir, before, state_before)
    status = tenant_status(tenant, data_dir, clock=clock)
    assert status.freshness == "fresh"  # the last good index keeps serving
    assert status.last_error is not None
    assert ("500" in status.last_error) if fault == "500" else ("reached" in status.last_error)
    assert run_outcomes(data_dir)[-1] == "failed"

    sandbox.clear_faults()
    report = await sync_tenant(tenant, data_dir, clock=clock, transport=transport)
    after = index_snapshot(data_dir)
    assert_exactly_once(after, expected_all(corpus, BOB))
    assert {wp_id: after["titles"][wp_id] for wp_id in CHANGED} == titles
    assert report.kind in ("incremental", "full")
    marks, _ = _state_view(data_dir)
    assert marks["work_packages"] >= state_before[0]["work_packages"]  # server clock, 1 s steps
    assert run_outcomes(data_dir)[-2:] == ["failed", "succeeded"]


async def test_first_sync_failing_publishes_nothing_and_the_retry_builds_the_index(
    paged_sandbox: SandboxHandle, corpus: dict[str, Any], data_dir: Path
) -> None:
    tenant = make_tenant(paged_sandbox, MEMBER_KEY)
    paged_sandbox.fault("/api/v3/work_packages/10/activities", status=500)

    with pytest.raises(ServerError):
        await sync_tenant(tenant, data_dir)

    directory = index_directory(data_dir, "acme")
    assert directory.current() is None and directory.generations() == []
    status = tenant_status(tenant, data_dir)
    assert status.freshness == "missing" and status.last_error is not None

    await sync_tenant(tenant, data_dir)
    assert_exactly_once(index_snapshot(data_dir), expected_all(corpus, BOB))


async def test_failed_rebuild_keeps_the_old_generation_and_removes_the_new_one(
    paged_sandbox: SandboxHandle, corpus: dict[str, Any], data_dir: Path
) -> None:
    tenant = make_tenant(paged_sandbox, MEMBER_KEY)
    first = await sync_tenant(tenant, data_dir)
    before = index_snapshot(data_dir)
    paged_sandbox.fault("/api/v3/work_packages/10/activities", status=500)

    with pytest.raises(ServerError):
        await rebuild_tenant(tenant, data_dir)

    directory = index_directory(data_dir, "acme")
    assert directory.current() == first.generation
    assert directory.generations() == [first.generation]  # the half-built one is gone
    assert index_snapshot(data_dir) == before

    report = await rebuild_tenant(tenant, data_dir)
    assert report.generation != first.generation
    assert_exactly_once(index_snapshot(data_dir), expected_all(corpus, BOB))


@pytest.mark.parametrize("status", [429, 503])
async def test_retry_after_is_honoured(
    paged_sandbox: SandboxHandle,
    corpus: dict[str, Any],
    data_dir: Path,
    caplog: pytest.LogCaptureFixture,
    status: int,
) -> None:
    tenant = make_tenant(paged_sandbox, MEMBER_KEY)
    paged_sandbox.reset_stats()
    paged_sandbox.fault("/api/v3/work_packages/9/activities", status=status, retry_after=1, count=2)

    with caplog.at_level(logging.WARNING, logger="opindex.openproject"):
        await sync_tenant(tenant, data_dir)

    assert paged_sandbox.stats()["by_path"]["/api/v3/work_packages/9/activities"] == 3
    waits = [r.getMessage() for r in caplog.records if f"HTTP {status}" in r.getMessage()]
    assert len(waits) == 2 and all("retrying in 1.00s" in message for message in waits)
    assert_exactly_once(index_snapshot(data_dir), expected_all(corpus, BOB))


async def test_retry_after_beyond_the_bound_fails_at_once_without_waiting(
    paged_sandbox: SandboxHandle, data_dir: Path
) -> None:
    tenant = make_tenant(paged_sandbox, MEMBER_KEY)
    await sync_tenant(tenant, data_dir)
    before, state_before = index_snapshot(data_dir), _state_view(data_dir)
    paged_sandbox.reset_stats()
    paged_sandbox.fault("/api/v3/work_packages", status=429, retry_after=3600, count=1)

    with pytest.raises(RateLimitedError) as raised:
        await sync_tenant(tenant, data_dir, full=True)

    assert raised.value.retry_after == 3600
    assert paged_sandbox.stats()["by_path"].get("/api/v3/work_packages") == 1  # no retry
    _assert_untouched(data_dir, before, state_before)
    paged_sandbox.clear_faults()


async def test_endless_429_gives_up_after_the_attempt_budget(
    paged_sandbox: SandboxHandle, data_dir: Path
) -> None:
    tenant = make_tenant(paged_sandbox, MEMBER_KEY)
    paged_sandbox.reset_stats()
    paged_sandbox.fault("/api/v3/work_packages/10/activities", status=429, retry_after=0, count=50)

    with pytest.raises(RateLimitedError):
        await sync_tenant(tenant, data_dir)

    assert paged_sandbox.stats()["by_path"]["/api/v3/work_packages/10/activities"] == 4
    paged_sandbox.clear_faults()
    assert run_outcomes(data_dir) == ["failed"]


@pytest.mark.parametrize("full", [False, True], ids=["incremental", "full"])
def test_401_mid_sync_stops_at_once_deletes_nothing_and_status_says_authentication(
    paged_sandbox: SandboxHandle,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    full: bool,
) -> None:
    config = write_config(tmp_path, [("acme", paged_sandbox, MEMBER_KEY)])
    data_dir = tmp_path / "data"
    assert cli.main(["sync", "--config", str(config), "--quiet"]) == cli.EXIT_OK
    before, state_before = index_snapshot(data_dir), _state_view(data_dir)
    _change(paged_sandbox, f"auth-{full}")
    paged_sandbox.reset_stats()
    paged_sandbox.fault(FAULTED, status=401)

    argv = ["sync", "--config", str(config), "--quiet", *(["--full"] if full else [])]
    assert cli.main(argv) == cli.EXIT_AUTH

    by_path = paged_sandbox.stats()["by_path"]
    assert by_path[FAULTED] == 1  # never retried
    if not full:  # meetings and wiki pages come after work packages: never reached
        assert not [p for p in by_path if p.startswith(("/api/v3/meetings", "/api/v3/wiki"))]
    with StateStore.for_tenant(data_dir, "acme") as state:
        failed, first = state.recent_runs()[0], state.recent_runs()[-1]
    assert failed.outcome == "failed" and failed.requests < first.requests
    _assert_untouched(data_dir, before, state_before)
    capsys.readouterr()

    assert cli.main(["status", "--config", str(config), "--json"]) == cli.EXIT_OK
    entry = json.loads(capsys.readouterr().out)["tenants"][0]
    assert entry["freshness"] == "fresh"
    assert "AuthenticationError" in entry["last_error"]
    assert entry["last_run"]["outcome"] == "failed"
    assert cli.main(["status", "--config", str(config)]) == cli.EXIT_OK
    assert "last error: AuthenticationError" in capsys.readouterr().out

    paged_sandbox.clear_faults()
    assert cli.main(["sync", "--config", str(config), "--quiet"]) == cli.EXIT_OK
    assert run_outcomes(data_dir)[-2:] == ["failed", "succeeded"]
