"""The keyset walk over work packages loses nothing when records change mid-walk, and
gets through runs of equal timestamps longer than a page."""

from __future__ import annotations

import asyncio
from pathlib import Path

from tests.support.config_files import make_tenant
from tests.support.sandbox import ADMIN_KEY, CorpusBuilder, running_sandbox
from tests.sync.conftest import indexed_ids

from opindex.index import TenantIndex
from opindex.sync import index_directory, sync_tenant


def _corpus(stamps: list[str]) -> dict[str, object]:
    builder = CorpusBuilder()
    for wp_id, stamp in enumerate(stamps, start=1):
        builder.add_work_package(wp_id, updatedAt=stamp)
    return builder.build()


async def test_a_record_changed_mid_run_hides_nothing_and_is_caught_next_run(
    tmp_path: Path,
) -> None:
    stamps = [f"2026-03-01T09:{minute:02d}:00Z" for minute in range(25)]
    with running_sandbox(_corpus(stamps), page_size_max=10, wiki_list=True) as sandbox:
        # Stall on record 10; meanwhile record 3 changes (it would move to the end of an
        # updatedAt order, and an offset walk in that order would skip record 11).
        sandbox.fault("/api/v3/work_packages/10/activities", hang=2)
        tenant = make_tenant(sandbox, ADMIN_KEY)
        sync = asyncio.create_task(sync_tenant(tenant, tmp_path))
        while not sandbox.stats()["by_path"].get("/api/v3/work_packages/10/activities"):
            assert not sync.done(), sync
            await asyncio.sleep(0.02)
        sandbox.mutate("upsert", "work_packages", {"id": 3, "subject": "Moved to the end"})
        await sync
        assert indexed_ids(tmp_path, "acme", "work_package") == list(range(1, 26))

        sandbox.reset_stats()
        report = await sync_tenant(tenant, tmp_path)
        assert report.counts["work_package"].upserted == 1  # only record 3 is read again
        assert sandbox.stats()["by_path"]["/api/v3/work_packages/3/activities"] == 1

    assert indexed_ids(tmp_path, "acme", "work_package") == list(range(1, 26))
    with TenantIndex(index_directory(tmp_path, "acme")) as index:
        moved = index.get("work_package", 3)
    assert moved is not None and moved.title == "Moved to the end"


async def test_equal_timestamps_longer_than_a_page(tmp_path: Path) -> None:
    stamps = ["2026-03-01T09:00:00Z"] + ["2026-03-02T09:00:00Z"] * 12 + ["2026-03-03T09:00:00Z"]
    with running_sandbox(_corpus(stamps), page_size_max=5, wiki_list=True) as sandbox:
        report = await sync_tenant(make_tenant(sandbox, ADMIN_KEY), tmp_path)
        lists = sandbox.stats()["by_path"]["/api/v3/work_packages"]
    assert indexed_ids(tmp_path, "acme", "work_package") == list(range(1, 15))
    assert report.documents["work_package"] == 14
    assert lists <= 8  # bounded: restarts only when the cursor moves, offsets in the tie
