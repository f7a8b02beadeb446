"""``tenant_status``: freshness from an injected clock, syncing while locked, read-only."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.support.clock import Clock
from tests.support.config_files import make_tenant
from tests.support.corpora import expected_ids, user_of
from tests.support.sandbox import MEMBER_KEY, SandboxHandle

from opindex.state import tenant_lock
from opindex.sync import sync_tenant, tenant_status


def _exists(path: Path) -> bool:
    return path.exists()


async def test_status_follows_the_clock_and_the_lock(
    sandbox: SandboxHandle, corpus: dict[str, Any], data_dir: Path, clock: Clock
) -> None:
    tenant = make_tenant(sandbox, MEMBER_KEY, max_staleness_seconds=600)

    never = tenant_status(tenant, data_dir, clock=clock)
    assert (never.state, never.freshness, never.last_sync_at) == ("missing", "missing", None)
    assert never.documents == {"work_packages": 0, "wiki_pages": 0, "meetings": 0}
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
