"""A rebuild fills a new generation while the old one keeps answering, then swaps."""

from __future__ import annotations

import asyncio
from pathlib import Path

from tests.support.config_files import make_tenant
from tests.support.sandbox import MEMBER_KEY, SandboxHandle

from opindex.index import TenantIndex
from opindex.sync import index_directory, rebuild_tenant, sync_tenant


async def test_searches_keep_working_during_a_rebuild(
    sandbox: SandboxHandle, data_dir: Path
) -> None:
    tenant = make_tenant(sandbox, MEMBER_KEY)
    first = await sync_tenant(tenant, data_dir)
    reader = TenantIndex(index_directory(data_dir, "acme"))
    old = reader.get("work_package", 5)
    assert old is not None
    sandbox.mutate("upsert", "work_packages", {"id": 5, "subject": "Seen after the swap"})
    sandbox.fault("/api/v3/work_packages/5/activities", hang=2)
    sandbox.reset_stats()

    rebuild = asyncio.create_task(rebuild_tenant(tenant, data_dir))
    while not sandbox.stats()["by_path"].get("/api/v3/work_packages/5/activities"):
        assert not rebuild.done(), rebuild
        await asyncio.sleep(0.05)
    # Mid-rebuild: the reader still answers from the old generation.
    assert reader.generation == first.generation
    assert reader.get("work_package", 5) == old
    assert reader.count("work_package") == first.documents["work_package"]

    report = await rebuild
    assert report.kind == "rebuild" and report.generation != first.generation
    assert reader.generation == report.generation  # the same reader follows the swap
    swapped = reader.get("work_package", 5)
    assert swapped is not None and swapped.title == "Seen after the swap"
    assert reader.count("work_package") == first.documents["work_package"]
    reader.close()
