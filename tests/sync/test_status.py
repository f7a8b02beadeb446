"""``tenant_status``: freshness from an injected clock, syncing while locked, read-only."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from tests.support.clock import Clock
from tests.support.config_files import make_tenant, write_config
from tests.support.corpora import expected_ids, user_of
from tests.support.sandbox import MEMBER_KEY, SandboxHandle

from opindex import cli
from opindex.search import KIND_KEYS
from opindex.state import StateStore, tenant_lock
from opindex.sync import sync_tenant, tenant_status


def _exists(path: Path) -> bool:
    return path.exists()


async def test_status_follows_the_clock_and_the_lock(
    sandbox: SandboxHandle, corpus: dict[str, Any], data_dir: Path, clock: Clock
) -> None:
    tenant = make_tenant(sandbox, MEMBER_KEY, max_staleness_seconds=600)

    never = tenant_status(tenant, data_dir, clock=clock)
    assert (never.state, never.freshness, never.last_sync_at) == ("missing", "missing", None)
    assert never.documents == dict.fromkeys(KIND_KEYS.values(), 0)
    assert not _exists(data_dir)  # status creates nothing

    report = await sync_tenant(tenant, data_dir, clock=clock)
    fresh = tenant_status(tenant, data_dir, clock=clock)
    assert fresh.state == "fresh" and fresh.last_sync_at == report.finished_at
    assert fresh.documents["meetings"] == len(
        expected_ids(corpus, user_of(corpus, MEMBER_KEY), "meeting")
    )
    assert fresh.index_bytes is not None and fresh.index_bytes > 0
    assert fresh.last_run is not None and fresh.last_run.outcome == "succeeded"
    assert fresh.capabilities is not None and fresh.capabilities["account"]["login"] == "bob"

    clock.advance(seconds=601)
    stale = tenant_status(tenant, data_dir, clock=clock)
    assert stale.state == "stale" and stale.age_seconds is not None and stale.age_seconds > 600

    with tenant_lock(data_dir, "acme", purpose="rebuild"):
        busy = tenant_status(tenant, data_dir, clock=clock)
    assert (busy.state, busy.freshness) == ("syncing", "stale")
    assert busy.syncing is not None and busy.syncing.purpose == "rebuild"
    assert busy.to_json()["syncing"]["purpose"] == "rebuild"


async def test_status_shows_manifest_webhooks_and_an_unfinished_full_sync(
    sandbox: SandboxHandle,
    corpus: dict[str, Any],
    data_dir: Path,
    clock: Clock,
    capsys: pytest.CaptureFixture[str],
) -> None:
    tenant = make_tenant(sandbox, MEMBER_KEY)
    visible = expected_ids(corpus, user_of(corpus, MEMBER_KEY), "work_package")
    # A first sync that is cancelled (a client disconnecting) after its first checkpoints:
    # it stalls on the activities of the last visible work package.
    last = max(visible)
    sandbox.fault(f"/api/v3/work_packages/{last}/activities", hang=30)
    run = asyncio.create_task(sync_tenant(tenant, data_dir, clock=clock, checkpoint_records=5))
    while not sandbox.stats()["by_path"].get(f"/api/v3/work_packages/{last}/activities"):
        assert not run.done(), run
        await asyncio.sleep(0.02)
    run.cancel()
    with pytest.raises(asyncio.CancelledError):
        await run
    sandbox.clear_faults()

    unfinished = tenant_status(tenant, data_dir, clock=clock)
    assert unfinished.state == "missing" and unfinished.checkpoint is not None
    assert unfinished.checkpoint.records_total == len(visible)
    assert 5 <= unfinished.checkpoint.records_done < len(visible)
    assert unfinished.to_json()["full_sync_checkpoint"]["records_total"] == len(visible)

    resumed = await sync_tenant(tenant, data_dir, clock=clock)
    assert resumed.reason.startswith("resuming the unfinished full sync")
    with StateStore.for_tenant(data_dir, "acme") as state:
        state.count_webhook("accepted", clock())
        state.count_webhook("refused", clock())
        state.count_webhook("refused", clock())
    sandbox.mutate("delete", "work_packages", {"id": last})
    sandbox.mutate("upsert", "work_packages", {"id": min(visible), "subject": "Changed"})
    await sync_tenant(tenant, data_dir, clock=clock)

    done = tenant_status(tenant, data_dir, clock=clock)
    assert done.checkpoint is None and done.state == "fresh"
    assert done.manifest is not None
    assert (done.manifest.added, done.manifest.changed, done.manifest.removed) == (0, 1, 1)
    assert done.webhooks == {"accepted": 1, "refused": 2}

    config = write_config(data_dir.parent, [("acme", sandbox, MEMBER_KEY)])
    capsys.readouterr()
    assert cli.main(["status", "--config", str(config)]) == 0
    shown = capsys.readouterr().out
    listed = f"last manifest: {len(visible) - 1} work packages on the server, 0 added, 1 changed"
    assert listed in shown
    assert "whole work-package listing: " in shown
    assert done.whole_listing_at is not None
    assert done.to_json()["manifest"]["whole_listing_at"] == done.whole_listing_at.isoformat()
    assert "webhooks: 1 accepted, 2 refused, 0 ignored" in shown
    assert "unfinished" not in shown
