"""A full sync killed (SIGKILL) at random points resumes from its last checkpoint.

Real ``python -m opindex sync`` processes against a real sandbox with 5,000 work
packages: each run is killed after a random number of work packages was read. Before
every next run the test reads which work packages the checkpoint holds and then checks,
from the sandbox's request log, that the next run did not read any of them again.
"""

from __future__ import annotations

import asyncio
import os
import random
import re
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from tests.support.config_files import write_config
from tests.support.corpora import expected_ids, user_of
from tests.support.processes import wait_until
from tests.support.sandbox import MEMBER_KEY, CorpusBuilder, SandboxHandle, running_sandbox

from opindex import cli
from opindex.config import load_config_file
from opindex.envelope import SearchRequest
from opindex.index import TenantIndex
from opindex.service.facade import Service
from opindex.state import StateStore
from opindex.sync import index_directory, rebuild_tenant, sync_tenant

WORK_PACKAGES = 5_000
ACTIVITIES = re.compile(r"^/api/v3/work_packages/(\d+)/activities$")


def _corpus() -> dict[str, Any]:
    builder = CorpusBuilder()
    builder.add_project(4, identifier="board", name="Board", members=[1])
    for wp_id in range(1, WORK_PACKAGES + 1):
        builder.add_work_package(
            wp_id,
            project=(1, 2, 3, 4)[wp_id % 4],
            subject=f"Task {wp_id}",
            updatedAt=f"2026-03-{1 + wp_id % 28:02d}T09:{wp_id % 60:02d}:00Z",
        )
    builder.add_wiki_page(1, project=1, title="Runbook", text="Rotate the keys.")
    return builder.build()


def _activity_reads(sandbox: SandboxHandle) -> list[int]:
    """Ids of the work packages whose activities were requested, one per request."""
    reads: list[int] = []
    for path, count in sandbox.stats()["by_path"].items():
        match = ACTIVITIES.match(path)
        if match:
            reads += [int(match.group(1))] * count
    return reads


def _committed(data_dir: Path) -> set[int]:
    with StateStore.for_tenant(data_dir, "acme") as state:
        return set(state.checkpoint_records("work_package"))


async def _search_notes(config_path: Path) -> list[str]:
    """The notes of a search while no index is published yet (it goes live)."""
    async with Service.from_config(load_config_file(config_path)) as service:
        response = await service.search(SearchRequest(kind="work_package", query="task"))
    assert response.meta.source == "live"
    return response.meta.notes


@pytest.mark.slow
def test_a_full_sync_killed_three_times_resumes_and_ends_exact(
    tmp_path: Path,
) -> None:
    seed = random.SystemRandom().randrange(1 << 30)
    rng = random.Random(seed)
    corpus = _corpus()
    bob = user_of(corpus, MEMBER_KEY)
    visible = expected_ids(corpus, bob, "work_package")
    assert len(visible) >= 3_500
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    with running_sandbox(corpus, wiki_list=True) as sandbox:
        config = write_config(tmp_path, [("acme", sandbox, MEMBER_KEY)])
        data_dir = tmp_path / "data"
        command = [sys.executable, "-m", "opindex", "sync", "--config", str(config)]
        total_reads = 0
        committed: set[int] = set()
        for attempt in range(3):
            before = _committed(data_dir) if attempt else set()
            assert before >= committed, f"seed {seed}: a checkpoint lost records"
            committed = before
            sandbox.reset_stats()
            stop_after = rng.randrange(600, 1400)
            victim = subprocess.Popen(
                command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env
            )
            try:
                wait_until(
                    lambda target=stop_after: len(_activity_reads(sandbox)) >= target,
                    f"run {attempt + 1} to read {stop_after} work packages (seed {seed})",
                    timeout=240.0,
                )
            finally:
                victim.send_signal(signal.SIGKILL)
                victim.wait(timeout=60)
            reads = _activity_reads(sandbox)
            total_reads += len(reads)
            again = committed & set(reads)
            assert not again, f"seed {seed}: run {attempt + 1} re-read {sorted(again)[:5]}"
            if attempt == 0:
                notes = asyncio.run(_search_notes(config))
                assert any(
                    "a full sync is in progress" in note and "answered live" in note
                    for note in notes
                ), notes
            if attempt == 1:  # between kills: one committed record deleted, one added
                doomed = min(_committed(data_dir) & visible)
                sandbox.mutate("delete", "work_packages", {"id": doomed})
                visible.discard(doomed)
                new = {"id": 9_001, "project": 1, "subject": "Added between kills"}
                sandbox.mutate(
                    "upsert", "work_packages", {**new, "type": 1, "status": 1, "author": 1}
                )
                visible.add(9_001)

        committed = _committed(data_dir)
        assert len(committed) >= 3 * 500 - 500, f"seed {seed}: too little was committed"
        sandbox.reset_stats()
        finish = subprocess.run(command, capture_output=True, text=True, env=env, timeout=600)
        assert finish.returncode == cli.EXIT_OK, finish.stderr
        reads = _activity_reads(sandbox)
        total_reads += len(reads)
        assert not committed & set(reads) - {9_001}, f"seed {seed}: the last run re-read"
        assert set(reads) >= visible - committed

    with TenantIndex(index_directory(data_dir, "acme")) as index:
        ids = index.all_ids("work_package")
    assert len(ids) == len(set(ids))
    assert set(ids) == visible, f"seed {seed}"
    # Each kill may lose at most one checkpoint interval (500) plus the chunk and the
    # requests in flight; nothing else is read twice.
    assert total_reads <= len(visible) + 3 * (500 + 100 + 8), f"seed {seed}"
    with StateStore.for_tenant(data_dir, "acme") as state:
        assert state.get_checkpoint() is None
        assert set(state.known_records("work_package")) == visible
        outcomes = [run.outcome for run in reversed(state.recent_runs())]
    assert outcomes == ["interrupted", "interrupted", "interrupted", "succeeded"]


async def test_an_interrupted_rebuild_keeps_the_previous_index_serving_and_resumes(
    sandbox: SandboxHandle, corpus: dict[str, Any], tmp_path: Path
) -> None:
    config_path = write_config(tmp_path, [("acme", sandbox, MEMBER_KEY)])
    config = load_config_file(config_path)
    tenant, data_dir = config.tenants[0], config.data_dir
    first = await sync_tenant(tenant, data_dir)
    visible = expected_ids(corpus, user_of(corpus, MEMBER_KEY), "work_package")
    last = max(visible)
    sandbox.fault(f"/api/v3/work_packages/{last}/activities", hang=30)
    sandbox.reset_stats()
    rebuild = asyncio.create_task(rebuild_tenant(tenant, data_dir, checkpoint_records=5))
    while not sandbox.stats()["by_path"].get(f"/api/v3/work_packages/{last}/activities"):
        assert not rebuild.done(), rebuild
        await asyncio.sleep(0.02)
    rebuild.cancel()
    with pytest.raises(asyncio.CancelledError):
        await rebuild
    sandbox.clear_faults()
    with StateStore.for_tenant(data_dir, "acme") as state:
        checkpoint = state.get_checkpoint()
    assert checkpoint is not None and checkpoint.run_kind == "rebuild"

    async with Service.from_config(config) as service:
        response = await service.search(SearchRequest(kind="work_package", query="certificate"))
    assert response.meta.source == "index" and response.results
    assert any(
        "a full sync is in progress" in note and "the previous index serves" in note
        for note in response.meta.notes
    ), response.meta.notes
    assert index_directory(data_dir, "acme").current() == first.generation

    sandbox.reset_stats()
    resumed = await sync_tenant(tenant, data_dir)  # a plain sync continues the rebuild
    assert resumed.kind == "rebuild" and resumed.reason.startswith("resuming")
    assert resumed.generation != first.generation
    assert index_directory(data_dir, "acme").current() == resumed.generation
    reads = _activity_reads(sandbox)
    assert len(reads) < len(visible)  # the checkpointed part was not read again
    with TenantIndex(index_directory(data_dir, "acme")) as index:
        assert set(index.all_ids("work_package")) == visible
