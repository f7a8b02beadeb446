"""Background jobs survive any exception: the daemon's scheduled verification that crashes
is logged once, recorded and shown by the status (CLI and tool) until it succeeds again;
refusal warnings are throttled by an injected clock."""

from __future__ import annotations

import asyncio
import logging
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from tests.support.config_files import write_config
from tests.support.processes import wait_until

from opindex import daemon as daemon_module
from opindex.config import load_config
from opindex.daemon import SyncDaemon
from opindex.mcp.status_report import status_report
from opindex.service import tenant_status
from opindex.webhooks.refusal_log import ThrottledWarnings

KEY = "0123456789abcdef0123456789abcdef01234567"


def _background(directory: Path) -> tuple[list[str], list[str]]:
    config = load_config(directory / "opindex.toml")
    status = tenant_status(config.tenant("acme"), config.data_dir)
    tool = status_report([status], {}).tenants[0].problems
    return (
        [line for line in status.problems if line.startswith("background")],
        [line for line in tool if line.startswith("background")],
    )


async def test_a_crashing_verification_job_is_recorded_and_the_schedule_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    write_config(tmp_path, [("acme", "http://127.0.0.1:9", KEY)], sync_interval_seconds=3600)
    config = load_config(tmp_path / "opindex.toml")
    crashes: list[str] = []

    def crashing(data_dir: Path, tenant: str, **_: Any) -> None:
        crashes.append(tenant)
        raise RuntimeError(f"verification bug under {data_dir}")

    monkeypatch.setattr(daemon_module, "verify_live_generation", crashing)
    daemon = SyncDaemon(config)
    await daemon.start()
    try:
        scheduler = daemon._scheduler
        assert scheduler is not None
        job = scheduler.get_job("verify:acme")
        for turn, said in ((1, "failed once"), (2, "failed 2 times")):  # run it now, twice
            job.modify(next_run_time=datetime.now(UTC))
            await asyncio.to_thread(
                wait_until,
                lambda said=said: any(said in line for line in _background(tmp_path)[0]),
                f"failure {turn} to be recorded",
            )
        assert len(crashes) == 2
        assert scheduler.get_job("verify:acme") is not None  # still scheduled
        cli_lines, tool_lines = _background(tmp_path)
        assert "background verification failed 2 times" in cli_lines[0]
        assert "RuntimeError: verification bug" in cli_lines[0]
        assert "background verification failed 2 times" in tool_lines[0]
        assert str(tmp_path) not in tool_lines[0]  # no server path reaches a client
        crash_logs = [r for r in caplog.records if "verification crashed" in r.getMessage()]
        assert len(crash_logs) == 2  # once per failure
        # Once it succeeds again, the failure is no longer shown.
        monkeypatch.setattr(daemon_module, "verify_live_generation", lambda *_a, **_k: None)
        job.modify(next_run_time=datetime.now(UTC))
        await asyncio.to_thread(
            wait_until, lambda: _background(tmp_path) == ([], []), "the failure to clear"
        )
    finally:
        await daemon.stop()


def test_refusal_warnings_are_throttled_and_say_what_was_left_out(
    caplog: pytest.LogCaptureFixture,
) -> None:
    now = [0.0]
    logger = logging.getLogger("tests.throttled")
    warnings = ThrottledWarnings(logger, interval=60, clock=lambda: now[0])
    with caplog.at_level(logging.WARNING, logger="tests.throttled"):
        assert warnings.warn("acme:refused", "acme: refused")
        assert not any(warnings.warn("acme:refused", "acme: refused") for _ in range(2_999))
        assert warnings.warn("beta:refused", "beta: refused")  # another key: its own window
        now[0] += 61
        assert warnings.warn("acme:refused", "acme: refused")
    lines = [record.getMessage() for record in caplog.records]
    assert lines == [
        "acme: refused",
        "beta: refused",
        "acme: refused (2999 more since the last such line, not logged)",
    ]
