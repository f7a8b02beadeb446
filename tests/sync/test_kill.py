"""A sync killed mid-way (SIGKILL) changes nothing that readers see; the next run completes.

The killed sync and the second, refused sync run as real ``python -m opindex sync``
processes, so the lock, the uncommitted index writes and the state database are
exercised across processes exactly as a daemon and a cron job would.
"""

from __future__ import annotations

import copy
import subprocess
from datetime import timedelta
from pathlib import Path
from typing import Any

from tests.support.clock import Clock
from tests.support.config_files import write_config
from tests.support.corpora import BOB, KINDS, expected_ids
from tests.support.processes import opindex_argv, subprocess_env, wait_until
from tests.support.sandbox import MEMBER_KEY, SandboxHandle, running_sandbox
from tests.support.synced_tenant import sync

from opindex import cli
from opindex.config import load_config
from opindex.index import TenantIndex
from opindex.state import StateStore, is_locked
from opindex.sync import index_directory


def _snapshot(data_dir: Path) -> dict[str, Any]:
    """What a reader sees: ids per kind and the title of work package 5."""
    with TenantIndex(index_directory(data_dir, "acme")) as reader:
        seen: dict[str, Any] = {kind: reader.all_ids(kind) for kind in KINDS}
        record = reader.get("work_package", 5)
        seen["title5"] = record.title if record else None
    return seen


def test_killed_sync_leaves_the_previous_index_and_the_rerun_completes(
    corpus: dict[str, Any], tmp_path: Path
) -> None:
    # Ten records per page, so the killed run has written pages before it stalls.
    with running_sandbox(corpus, page_size_max=10, wiki_list=True) as sandbox:
        config = write_config(
            tmp_path, [("acme", sandbox, MEMBER_KEY)], deletion_sweep_interval_seconds=1
        )
        data_dir = tmp_path / "data"
        # Stamped ten minutes ago, so the last run's deletion sweep is due however fast the
        # test runs (the sweep interval is one second).
        sync(load_config(config), clock=Clock(offset=timedelta(minutes=-10)))
        before = _snapshot(data_dir)
        live = _mutate(sandbox, corpus)
        # The newest work package (5, just changed) is on the last page: stall there.
        sandbox.fault("/api/v3/work_packages/5/activities", hang=30)
        sandbox.reset_stats()

        env = subprocess_env()
        victim = subprocess.Popen(
            opindex_argv("sync", "--config", str(config), "--full"),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            env=env,
        )
        try:
            wait_until(
                lambda: sandbox.stats()["by_path"].get("/api/v3/work_packages/5/activities", 0) > 0,
                "the sync to reach the stalled request",
            )
            assert is_locked(data_dir, "acme")
            assert _snapshot(data_dir) == before  # readers keep the previous index

            second = subprocess.run(
                opindex_argv("sync", "--config", str(config), "--tenant", "acme"),
                capture_output=True,
                text=True,
                timeout=120,
                env=env,
            )
            assert second.returncode == cli.EXIT_SYNC_RUNNING
            assert "acme" in second.stderr and "already being synced" in second.stderr
        finally:
            victim.kill()
            victim.wait(timeout=30)
        assert _snapshot(data_dir) == before  # uncommitted writes died with the process
        sandbox.clear_faults()

        assert cli.main(["sync", "--config", str(config), "--quiet"]) == cli.EXIT_OK

    after = _snapshot(data_dir)
    for kind in KINDS:
        assert len(after[kind]) == len(set(after[kind])), f"duplicate {kind}"
        assert set(after[kind]) == expected_ids(live, BOB, kind), kind
    assert after["title5"] == "Changed while a sync was killed"
    with StateStore.for_tenant(data_dir, "acme") as state:
        outcomes = [run.outcome for run in reversed(state.recent_runs())]
    assert outcomes == ["succeeded", "interrupted", "succeeded"]


def _mutate(sandbox: SandboxHandle, corpus: dict[str, Any]) -> dict[str, Any]:
    """Change, add and delete records on the server; return the corpus as it is now."""
    live = copy.deepcopy(corpus)
    sandbox.mutate(
        "upsert", "work_packages", {"id": 5, "subject": "Changed while a sync was killed"}
    )
    sandbox.mutate("delete", "work_packages", {"id": 8})
    live["work_packages"] = [wp for wp in live["work_packages"] if wp["id"] != 8]
    sandbox.mutate("delete", "meetings", {"id": 4})
    live["meetings"] = [m for m in live["meetings"] if m["id"] != 4]
    return live


def test_sigterm_stops_a_sync_cleanly_and_records_it(
    sandbox: SandboxHandle, tmp_path: Path
) -> None:
    config = write_config(tmp_path, [("acme", sandbox, MEMBER_KEY)])
    sandbox.fault("/api/v3/work_packages/5/activities", hang=30)
    victim = subprocess.Popen(
        opindex_argv("sync", "--config", str(config)), stderr=subprocess.PIPE, text=True
    )
    wait_until(
        lambda: bool(sandbox.stats()["by_path"].get("/api/v3/work_packages/5/activities")),
        "the sync to reach the stalled request",
    )
    victim.terminate()
    _, err = victim.communicate(timeout=60)

    assert victim.returncode == cli.EXIT_INTERRUPTED
    assert err.strip() == "opindex sync: interrupted"
    data_dir = tmp_path / "data"
    with StateStore.for_tenant(data_dir, "acme") as state:
        run = state.latest_run()
    assert run is not None and run.outcome == "interrupted"
    # The first index was being built in an unpublished generation: nothing is left.
    assert list(index_directory(data_dir, "acme").root.iterdir()) == []
