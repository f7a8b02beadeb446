"""Incremental sync: changes, deletions and lost visibility reach the index; nothing else moves."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from tests.support.clock import Clock
from tests.support.config_files import make_tenant
from tests.support.corpora import expected_ids, user_of
from tests.support.sandbox import MEMBER_KEY, SandboxHandle
from tests.sync.conftest import indexed_ids

from opindex.index import TenantIndex
from opindex.state import StateStore
from opindex.sync import index_directory, sync_tenant, wiki_probe

BOB = 2


def _get(data_dir: Path, kind: str, record_id: int) -> Any:
    with TenantIndex(index_directory(data_dir, "acme")) as index:
        return index.get(kind, record_id)


def _texts(record: Any, field: str) -> list[str]:
    return [value.text for value in record.document.fields.get(field, ())]


async def test_next_sync_reflects_upserts_and_deletes_of_every_kind(
    probing_sandbox: SandboxHandle, corpus: dict[str, Any], data_dir: Path, clock: Clock
) -> None:
    sandbox = probing_sandbox
    tenant = make_tenant(sandbox, MEMBER_KEY)
    await sync_tenant(tenant, data_dir, clock=clock)
    live = copy.deepcopy(corpus)

    def mutate(op: str, table: str, record: dict[str, Any]) -> None:
        sandbox.mutate(op, table, record)
        rows = live[table]
        if op == "delete":
            rows[:] = [row for row in rows if row["id"] != record["id"]]
            return
        for row in rows:
            if row["id"] == record["id"]:
                row.update(record)
                return
        rows.append(record)

    # Work packages: a changed subject, a new comment, a new one, a deleted one.
    mutate("upsert", "work_packages", {"id": 5, "subject": "Replace the load balancer"})
    wp6 = next(wp for wp in corpus["work_packages"] if wp["id"] == 6)
    comment = {"id": 99_001, "user": 2, "comment": "Escalated to the vendor", "internal": False}
    mutate("upsert", "work_packages", {"id": 6, "activities": [*wp6["activities"], comment]})
    fresh_wp = {**copy.deepcopy(wp6), "id": 400, "subject": "Brand new task", "activities": []}
    fresh_wp.pop("updatedAt")
    mutate("upsert", "work_packages", fresh_wp)
    mutate("delete", "work_packages", {"id": 8})
    # Meetings: changed agenda notes, one deleted.
    meeting1 = next(m for m in corpus["meetings"] if m["id"] == 1)
    items = copy.deepcopy(meeting1["agendaItems"])
    items[0]["notes"] = "Budget for the new office"
    mutate("upsert", "meetings", {"id": 1, "agendaItems": items})
    mutate("delete", "meetings", {"id": 2})
    # Wiki: changed text, a new page above the highest id, one deleted.
    mutate("upsert", "wiki_pages", {"id": 51, "text": "Keys are rotated every quarter."})
    mutate("upsert", "wiki_pages", {"id": 91, "project": 1, "title": "Onboarding", "text": "Hi"})
    mutate("delete", "wiki_pages", {"id": 52})

    # Past the wiki refresh interval and the deletion sweep interval.
    clock.advance(seconds=tenant.wiki_refresh_interval_seconds + 1)
    report = await sync_tenant(tenant, data_dir, clock=clock)

    assert report.kind == "incremental"
    assert report.swept
    for kind in ("work_package", "wiki_page", "meeting"):
        assert set(indexed_ids(data_dir, "acme", kind)) == expected_ids(live, BOB, kind), kind
    assert _get(data_dir, "work_package", 5).title == "Replace the load balancer"
    assert "Escalated to the vendor" in _texts(_get(data_dir, "work_package", 6), "comments")
    assert _get(data_dir, "work_package", 400).title == "Brand new task"
    assert "Budget for the new office" in _texts(_get(data_dir, "meeting", 1), "agenda_notes")
    assert _texts(_get(data_dir, "wiki_page", 51), "text") == ["Keys are rotated every quarter."]
    assert report.counts["work_package"].deleted == 1
    assert report.counts["meeting"].deleted == 1
    assert report.counts["wiki_page"].deleted == 1


async def test_unchanged_tenant_costs_few_requests_and_writes_nothing(
    probing_sandbox: SandboxHandle, data_dir: Path, clock: Clock
) -> None:
    sandbox = probing_sandbox
    tenant = make_tenant(sandbox, MEMBER_KEY)
    first = await sync_tenant(tenant, data_dir, clock=clock)
    with StateStore.for_tenant(data_dir, "acme") as state:
        marks = state.high_water_marks()
    sandbox.reset_stats()

    report = await sync_tenant(tenant, data_dir, clock=clock)

    assert report.kind == "incremental"
    by_path = sandbox.stats()["by_path"]
    assert sandbox.stats()["requests"] == report.requests
    # users/me, projects, one manifest page, one meeting page, one page each of news,
    # documents and versions; the wiki's share: pages due for their hourly re-read (none
    # yet) and one batch of ids above the highest page. No attachment list: nothing changed.
    assert by_path["/api/v3/work_packages"] == 1 and by_path["/api/v3/meetings"] == 1
    assert [by_path[f"/api/v3/{name}"] for name in ("news", "documents", "versions")] == [1, 1, 1]
    wiki = sum(n for path, n in by_path.items() if path.startswith("/api/v3/wiki_pages/"))
    assert wiki <= wiki_probe.FRONTIER + 1
    assert report.requests == 7 + wiki
    assert all(c.upserted == 0 and c.deleted == 0 for c in report.counts.values())
    assert report.opstamp == first.opstamp  # nothing was written: the index did not move
    assert report.documents == first.documents
    with StateStore.for_tenant(data_dir, "acme") as state:
        assert set(state.high_water_marks()) == set(marks)


async def test_work_package_deletions_are_gone_after_the_next_run(
    sandbox: SandboxHandle, data_dir: Path, clock: Clock
) -> None:
    tenant = make_tenant(sandbox, MEMBER_KEY, deletion_sweep_interval_seconds=600)
    await sync_tenant(tenant, data_dir, clock=clock)
    sandbox.mutate("delete", "work_packages", {"id": 4})
    sandbox.reset_stats()

    report = await sync_tenant(tenant, data_dir, clock=clock)  # no sweep interval waited
    assert 4 not in indexed_ids(data_dir, "acme", "work_package")
    assert report.counts["work_package"].deleted == 1
    # The manifest page, then one ``id =`` query confirming 4 is gone.
    assert sandbox.stats()["by_path"]["/api/v3/work_packages"] == 2


async def test_a_404_on_a_single_fetch_removes_the_record(
    sandbox: SandboxHandle, data_dir: Path, clock: Clock
) -> None:
    tenant = make_tenant(sandbox, MEMBER_KEY)
    await sync_tenant(tenant, data_dir, clock=clock)
    sandbox.mutate("upsert", "work_packages", {"id": 5, "subject": "Changed"})
    sandbox.fault("/api/v3/work_packages/5/activities", status=404)

    report = await sync_tenant(tenant, data_dir, clock=clock)
    assert 5 not in indexed_ids(data_dir, "acme", "work_package")
    assert report.counts["work_package"].deleted == 1

    # It was not really gone: the next manifest lists it and it is fetched again.
    await sync_tenant(tenant, data_dir, clock=clock)
    assert _get(data_dir, "work_package", 5).title == "Changed"


async def test_lost_project_membership_removes_its_records_at_once(
    sandbox: SandboxHandle, corpus: dict[str, Any], data_dir: Path, clock: Clock
) -> None:
    tenant = make_tenant(sandbox, MEMBER_KEY)
    await sync_tenant(tenant, data_dir, clock=clock)
    hr = [r["id"] for r in corpus["work_packages"] if r["project"] == 2]
    assert set(hr) <= set(indexed_ids(data_dir, "acme", "work_package"))

    sandbox.mutate("upsert", "projects", {"id": 2, "members": [1]})
    report = await sync_tenant(tenant, data_dir, clock=clock)

    live = copy.deepcopy(corpus)
    next(p for p in live["projects"] if p["id"] == 2)["members"] = [1]
    assert report.swept
    for kind in ("work_package", "wiki_page", "meeting"):
        ids = set(indexed_ids(data_dir, "acme", kind))
        assert ids == expected_ids(live, user_of(live, MEMBER_KEY), kind), kind
        assert not ids & {r["id"] for r in corpus[f"{kind}s"] if r["project"] == 2}
