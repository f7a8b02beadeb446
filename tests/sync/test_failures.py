"""Failures leave the last good index serving and the state pointing at it; runs resume."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from tests.support.clock import Clock
from tests.support.config_files import make_tenant
from tests.support.corpora import expected_ids
from tests.support.sandbox import MEMBER_KEY, OUTSIDER_KEY, SandboxHandle
from tests.sync.conftest import indexed_ids

from opindex.errors import AuthenticationError, ServerError, SyncInProgressError
from opindex.index import TenantIndex
from opindex.records import Record
from opindex.search.document import FieldValue, SearchDocument
from opindex.state import StateStore, tenant_lock
from opindex.sync import index_directory, rebuild_tenant, sync_tenant

BOB = 2


def _title(data_dir: Path, wp_id: int) -> str | None:
    with TenantIndex(index_directory(data_dir, "acme")) as index:
        record = index.get("work_package", wp_id)
    return None if record is None else record.title


async def test_failed_sync_is_recorded_and_leaves_index_and_marks_alone(
    sandbox: SandboxHandle, data_dir: Path, clock: Clock
) -> None:
    tenant = make_tenant(sandbox, MEMBER_KEY)
    first = await sync_tenant(tenant, data_dir, clock=clock)
    with StateStore.for_tenant(data_dir, "acme") as state:
        marks = state.high_water_marks()
        pointer = state.get_index_pointer()
    old_title = _title(data_dir, 5)
    sandbox.mutate("upsert", "work_packages", {"id": 5, "subject": "Changed mid-way"})
    sandbox.mutate("upsert", "work_packages", {"id": 4, "subject": "Also changed"})
    sandbox.fault("/api/v3/work_packages/5/activities", status=500)

    with pytest.raises(ServerError):
        await sync_tenant(tenant, data_dir, clock=clock)

    with StateStore.for_tenant(data_dir, "acme") as state:
        run = state.latest_run()
        assert run is not None and run.outcome == "failed"
        assert run.error is not None and "500" in run.error
        assert state.high_water_marks() == marks
        assert state.get_index_pointer() == pointer
        last_good = state.last_successful_run()
        assert last_good is not None and last_good.id == first.run_id
    assert _title(data_dir, 5) == old_title  # the last good index still serves
    assert _title(data_dir, 4) != "Also changed"  # nothing of the failed run leaked

    sandbox.clear_faults()
    report = await sync_tenant(tenant, data_dir, clock=clock)
    assert report.kind == "incremental"
    assert _title(data_dir, 5) == "Changed mid-way"
    assert _title(data_dir, 4) == "Also changed"
    with StateStore.for_tenant(data_dir, "acme") as state:
        assert state.high_water_marks()["work_packages"] >= marks["work_packages"]


async def test_a_held_lock_refuses_a_second_sync_naming_the_tenant(
    sandbox: SandboxHandle, data_dir: Path
) -> None:
    tenant = make_tenant(sandbox, MEMBER_KEY)
    with tenant_lock(data_dir, "acme", purpose="sync"), pytest.raises(SyncInProgressError) as err:
        await sync_tenant(tenant, data_dir)
    assert "acme" in str(err.value)
    assert sandbox.stats()["requests"] == 0  # refused before talking to OpenProject


async def test_index_committed_without_state_is_repaired_by_the_next_run(
    sandbox: SandboxHandle, corpus: dict[str, Any], data_dir: Path, clock: Clock
) -> None:
    """A crash between the index commit and the state transaction leaves the index ahead
    of the state; the next run notices, re-applies from the older marks and sweeps."""
    tenant = make_tenant(sandbox, MEMBER_KEY)
    await sync_tenant(tenant, data_dir, clock=clock)
    stray = Record(
        document=SearchDocument("work_package", 9999, {"subject": (FieldValue("stray"),)}),
        title="stray",
    )
    with TenantIndex(index_directory(data_dir, "acme")) as index:
        index.upsert([stray])
        index.delete("work_package", [4])
        index.commit()

    report = await sync_tenant(tenant, data_dir, clock=clock)

    assert report.kind == "incremental" and report.swept
    assert "interrupted" in report.reason
    ids = indexed_ids(data_dir, "acme", "work_package")
    assert set(ids) == expected_ids(corpus, BOB, "work_package")
    with StateStore.for_tenant(data_dir, "acme") as state:
        pointer = state.get_index_pointer()
        assert pointer is not None and pointer.opstamp == report.opstamp
        assert state.known_ids("work_package") == set(ids)


async def test_a_deleted_index_is_rebuilt_by_the_next_sync(
    sandbox: SandboxHandle, corpus: dict[str, Any], data_dir: Path
) -> None:
    tenant = make_tenant(sandbox, MEMBER_KEY)
    first = await sync_tenant(tenant, data_dir)
    directory = index_directory(data_dir, "acme")
    directory.pointer.unlink()

    report = await sync_tenant(tenant, data_dir)

    assert report.kind == "full" and report.generation != first.generation
    assert set(indexed_ids(data_dir, "acme", "meeting")) == expected_ids(corpus, BOB, "meeting")


async def test_a_credential_of_another_account_needs_a_rebuild(
    sandbox: SandboxHandle, corpus: dict[str, Any], data_dir: Path
) -> None:
    await sync_tenant(make_tenant(sandbox, MEMBER_KEY), data_dir)
    other = make_tenant(sandbox, OUTSIDER_KEY)

    with pytest.raises(AuthenticationError) as err:
        await sync_tenant(other, data_dir)
    assert "rebuild" in str(err.value) and "acme" in str(err.value)
    assert "key-" not in str(err.value)

    await rebuild_tenant(other, data_dir)
    carol = 3
    assert set(indexed_ids(data_dir, "acme", "work_package")) == expected_ids(
        corpus, carol, "work_package"
    )
