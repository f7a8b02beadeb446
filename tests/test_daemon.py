"""The sync daemon: scheduled incremental syncs, change pickup, coexistence with cron syncs."""

from __future__ import annotations

import asyncio
import gc
import logging
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from mcp import Client
from tests.support.config_files import write_config
from tests.support.corpus_builder import MEMBER_KEY, CorpusBuilder
from tests.support.processes import subprocess_env
from tests.support.sandbox import SandboxHandle, running_sandbox

from opindex.cli import EXIT_SYNC_RUNNING
from opindex.config import Config, load_config
from opindex.daemon import SyncDaemon, SyncOutcome, jitter_for
from opindex.envelope import SearchRequest
from opindex.mcp.server import ServerOptions, build_server
from opindex.service import Service
from opindex.state import StateStore, is_locked
from opindex.sync import tenant_status

WAIT_SECONDS = 90.0


def small_corpus() -> CorpusBuilder:
    builder = CorpusBuilder()
    builder.add_work_package(1, subject="Replace the office printer")
    builder.add_work_package(2, subject="Order new chairs", project=2)
    builder.add_wiki_page(3, title="Printer manual")
    builder.add_meeting(4, title="Facilities weekly")
    return builder


@pytest.fixture
def sandbox() -> Iterator[SandboxHandle]:
    with running_sandbox(small_corpus().build()) as handle:
        yield handle


def config_for(sandbox: SandboxHandle, directory: Path, interval: int) -> Config:
    path = write_config(directory, [("acme", sandbox, MEMBER_KEY)], sync_interval_seconds=interval)
    return load_config(path)


class Outcomes:
    """Daemon outcomes as they arrive, awaitable."""

    def __init__(self) -> None:
        self.queue: asyncio.Queue[SyncOutcome] = asyncio.Queue()
        self.seen: list[SyncOutcome] = []

    def __call__(self, outcome: SyncOutcome) -> None:
        self.seen.append(outcome)
        self.queue.put_nowait(outcome)

    async def next(self) -> SyncOutcome:
        return await asyncio.wait_for(self.queue.get(), WAIT_SECONDS)

    async def until(self, wanted: str) -> SyncOutcome:
        while True:
            outcome = await self.next()
            if outcome.outcome == wanted:
                return outcome


async def index_titles(config: Config, query: str) -> list[str]:
    async with Service.from_config(config) as service:
        response = await service.search(
            SearchRequest(kind="work_package", query=query, source="index")
        )
    return [result.title for result in response.results]


def test_jitter_is_a_tenth_of_the_interval_capped() -> None:
    assert [jitter_for(seconds) for seconds in (1, 9, 10, 900, 86400)] == [0, 0, 1, 30, 30]


async def test_served_index_is_synced_at_start_and_changes_appear_next_interval(
    sandbox: SandboxHandle, tmp_path: Path
) -> None:
    """Through the MCP server: its daemon builds the missing index, then a record changed
    in OpenProject shows up in the search tool's results after one interval, no restart."""
    config = config_for(sandbox, tmp_path, interval=1)
    outcomes = Outcomes()
    options = ServerOptions(transport="stdio", on_sync=outcomes)
    arguments = {"query": "pelican", "source": "index", "fallback": False}
    async with Client(build_server(config, options)) as client:
        first = await outcomes.until("succeeded")
        assert first.report is not None and first.report.kind == "full"
        before = await client.call_tool("openproject_search_work_packages", arguments)
        assert before.structured_content is not None
        assert before.structured_content["results"] == []

        sandbox.mutate("upsert", "work_packages", {"id": 1, "subject": "Pelican crossing"})
        titles: list[str] = []
        while not titles:
            outcome = await outcomes.until("succeeded")
            assert outcome.report is not None and outcome.report.kind == "incremental"
            after = await client.call_tool("openproject_search_work_packages", arguments)
            assert after.structured_content is not None
            titles = [result["title"] for result in after.structured_content["results"]]
        assert titles == ["Pelican crossing"]
        assert after.structured_content["meta"]["source"] == "index"
    assert all(outcome.outcome in ("succeeded", "cancelled") for outcome in outcomes.seen)


async def test_cron_sync_is_refused_while_the_daemon_syncs(
    sandbox: SandboxHandle, tmp_path: Path
) -> None:
    config = config_for(sandbox, tmp_path, interval=3600)
    cron = started_cron_sync(tmp_path / "opindex.toml")
    sandbox.fault("/api/v3/users/me", hang=5, count=1)  # the daemon's run holds the lock
    outcomes = Outcomes()
    daemon = SyncDaemon(config, on_sync=outcomes)
    await daemon.start()
    try:
        await wait_until_locked(config)
        _, stderr = await asyncio.to_thread(cron.communicate, "go\n", 120)
        assert cron.returncode == EXIT_SYNC_RUNNING, stderr
        assert "acme" in stderr and "sync" in stderr
        outcome = await outcomes.next()
        assert outcome.outcome == "succeeded", outcome.error
    finally:
        await daemon.stop()
    status = tenant_status(config.tenant("acme"), config.data_dir)
    assert (status.state, status.last_error) == ("fresh", None)
    content = {key: status.documents[key] for key in ("work_packages", "wiki_pages", "meetings")}
    assert content == {"work_packages": 2, "wiki_pages": 1, "meetings": 1}
    assert await index_titles(config, "office printer") == ["Replace the office printer"]


async def test_daemon_run_is_refused_while_a_cron_sync_runs_then_recovers(
    sandbox: SandboxHandle, tmp_path: Path
) -> None:
    config = config_for(sandbox, tmp_path, interval=1)
    cron = started_cron_sync(tmp_path / "opindex.toml")
    sandbox.fault("/api/v3/users/me", hang=3, count=1)  # the cron run holds the lock
    assert cron.stdin is not None
    cron.stdin.write("go\n")
    cron.stdin.flush()
    try:
        await wait_until_locked(config)
        outcomes = Outcomes()
        daemon = SyncDaemon(config, on_sync=outcomes)
        await daemon.start()
        try:
            refused = await outcomes.next()
            assert refused.outcome == "refused"
            assert refused.error is not None and "acme" in refused.error
            assert daemon.running
            _, stderr = await asyncio.to_thread(cron.communicate, timeout=120)
            assert cron.returncode == 0, stderr
            recovered = await outcomes.until("succeeded")
            assert recovered.report is not None
        finally:
            await daemon.stop()
    finally:
        if cron.poll() is None:
            cron.kill()
            cron.wait(timeout=10)
    assert await index_titles(config, "office printer") == ["Replace the office printer"]


async def test_the_background_check_finds_damage_and_the_daemon_rebuilds_at_once(
    sandbox: SandboxHandle, tmp_path: Path
) -> None:
    config = config_for(sandbox, tmp_path, interval=3600)
    outcomes = Outcomes()
    daemon = SyncDaemon(config, on_sync=outcomes)
    await daemon.start()
    try:
        first = await outcomes.until("succeeded")  # the missing index is built at start
        assert first.report is not None
        assert await daemon.verify_now("acme") is None  # sound
        live = config.data_dir / "acme" / "index" / first.report.generation
        store = next(path for path in live.iterdir() if path.suffix == ".store")
        data = bytearray(store.read_bytes())
        data[len(data) // 3] ^= 0xFF  # one flipped byte, the size unchanged
        store.write_bytes(bytes(data))

        damage = await daemon.verify_now("acme")
        assert damage is not None and damage.file == store.name
        repaired = daemon.last_outcome("acme")
        assert repaired is not None and repaired.outcome == "succeeded", repaired
        assert repaired.report is not None and repaired.report.kind == "full"
        assert repaired.report.generation != first.report.generation  # a new generation
        assert await daemon.verify_now("acme") is None
    finally:
        await daemon.stop()
    assert tenant_status(config.tenant("acme"), config.data_dir).problems == ()
    assert await index_titles(config, "office printer") == ["Replace the office printer"]


CRON = """
import sys
from opindex.cli import main
import opindex.cli.sync_command
sys.stdin.readline()
sys.exit(main(sys.argv[1:]))
"""


def started_cron_sync(config_path: Path) -> subprocess.Popen[str]:
    """``opindex sync`` in a subprocess, imported and waiting for a line on stdin to run
    (so the moment it tries the lock does not depend on interpreter start-up time)."""
    return subprocess.Popen(
        [sys.executable, "-c", CRON, "sync", "--config", str(config_path), "--quiet"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=subprocess_env(),
    )


async def wait_until_locked(config: Config) -> None:
    """Poll until some process holds the tenant's sync lock (fails after WAIT_SECONDS)."""
    deadline = time.monotonic() + WAIT_SECONDS
    while not is_locked(config.data_dir, "acme"):
        assert time.monotonic() < deadline, "no sync took the lock"
        await asyncio.sleep(0.05)


async def test_stopping_the_daemon_mid_sync_is_quiet(
    sandbox: SandboxHandle, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    sandbox.fault("/api/v3/work_packages", hang=20, count=5)
    outcomes = Outcomes()
    daemon = SyncDaemon(config_for(sandbox, tmp_path, 3600), on_sync=outcomes)
    await daemon.start()
    deadline = time.monotonic() + WAIT_SECONDS
    while not sandbox.stats()["by_path"].get("/api/v3/work_packages"):
        assert time.monotonic() < deadline, "the sync never reached the work packages"
        await asyncio.sleep(0.05)

    await daemon.stop()  # what a disconnecting stdio client triggers
    await asyncio.sleep(0)
    gc.collect()  # an unread future exception would be reported now
    await asyncio.sleep(0)

    assert [outcome.outcome for outcome in outcomes.seen] == ["cancelled"]
    loud = [record for record in caplog.records if record.levelno >= logging.WARNING]
    assert loud == [], [record.getMessage() for record in loud]
    assert "never retrieved" not in caplog.text
    assert "Traceback" not in caplog.text
    with StateStore.for_tenant(tmp_path / "data", "acme") as state:
        run = state.latest_run()
    assert run is not None and run.outcome == "interrupted"
