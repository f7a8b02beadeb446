"""Wiki freshness on released servers (no list endpoint): new pages by the next run, edits
within the refresh interval (one hour by default)."""

from __future__ import annotations

from pathlib import Path

from tests.support.clock import Clock
from tests.support.config_files import make_tenant
from tests.support.sandbox import MEMBER_KEY, SandboxHandle
from tests.sync.conftest import indexed_ids

from opindex.index import TenantIndex
from opindex.sync import index_directory, sync_tenant


def _wiki_title(data_dir: Path, page_id: int) -> str | None:
    with TenantIndex(index_directory(data_dir, "acme")) as index:
        record = index.get("wiki_page", page_id)
    return record.title if record is not None else None


async def test_new_pages_come_next_run_and_edits_within_the_interval(
    probing_sandbox: SandboxHandle, data_dir: Path, clock: Clock
) -> None:
    sandbox = probing_sandbox
    tenant = make_tenant(sandbox, MEMBER_KEY)
    assert tenant.wiki_refresh_interval_seconds == 3600
    await sync_tenant(tenant, data_dir, clock=clock)
    assert max(indexed_ids(data_dir, "acme", "wiki_page")) == 90
    # Ten pages of a project bob cannot see take the next ids; then one of his own.
    for page_id in range(91, 101):
        sandbox.mutate("upsert", "wiki_pages", {"id": page_id, "project": 4, "title": "Board"})
    sandbox.mutate("upsert", "wiki_pages", {"id": 101, "project": 1, "title": "Fresh page"})
    sandbox.mutate("upsert", "wiki_pages", {"id": 51, "title": "Renamed runbook"})

    clock.advance(seconds=60)
    await sync_tenant(tenant, data_dir, clock=clock)
    assert _wiki_title(data_dir, 101) == "Fresh page"
    assert not set(range(91, 101)) & set(indexed_ids(data_dir, "acme", "wiki_page"))

    # Runs spread the re-reads over the interval: by its end every page was re-read.
    for _ in range(4):
        clock.advance(seconds=tenant.wiki_refresh_interval_seconds / 4 + 1)
        await sync_tenant(tenant, data_dir, clock=clock)
    assert _wiki_title(data_dir, 51) == "Renamed runbook"
