"""The webhook receiver in process: waits are injected, a held lock defers the re-fetch."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import httpx
from starlette.applications import Starlette
from tests.support.config_files import write_config
from tests.support.sandbox import MEMBER_KEY, SandboxHandle

from opindex.config import load_config_file
from opindex.index import TenantIndex
from opindex.state import tenant_lock
from opindex.sync import index_directory, sync_tenant
from opindex.sync.targeted import RefreshReport
from opindex.webhook_signature import sign
from opindex.webhooks.receiver import WebhookReceiver

SECRET = "in-process-secret"


def _title(data_dir: Path, wp_id: int) -> str | None:
    with TenantIndex(index_directory(data_dir, "acme")) as index:
        record = index.get("work_package", wp_id)
    return record.title if record is not None else None


async def test_a_held_lock_defers_the_refetch_and_waits_are_the_configured_ones(
    sandbox: SandboxHandle, tmp_path: Path
) -> None:
    path = write_config(
        tmp_path,
        [("acme", sandbox, MEMBER_KEY)],
        webhook_path="/hooks/acme",
        webhook_secret=SECRET,
    )
    config = load_config_file(path)
    tenant, data_dir = config.tenants[0], config.data_dir
    await sync_tenant(tenant, data_dir)
    sandbox.mutate("upsert", "work_packages", {"id": 5, "subject": "Deferred by a lock"})

    waits: list[float] = []
    proceed = asyncio.Event()
    resting = asyncio.Event()
    refreshed = asyncio.Event()

    async def sleep(seconds: float) -> None:
        waits.append(seconds)
        if seconds == 7.0:  # the rest after a turn: hold the worker until the test says
            resting.set()
            await proceed.wait()
            proceed.clear()
        await asyncio.sleep(0)

    reports: list[RefreshReport] = []
    receiver = WebhookReceiver(
        config,
        coalesce_seconds=3.0,
        min_interval_seconds=7.0,
        sleep=sleep,
        on_refresh=lambda _tenant, report: (reports.append(report), refreshed.set()),
    )
    app = Starlette(routes=receiver.routes())
    body = json.dumps({"action": "work_package:updated", "work_package": {"id": 5}}).encode()
    async with (
        receiver,
        httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://op") as http,
    ):
        with tenant_lock(data_dir, "acme", purpose="sync"):
            response = await http.post(
                "/hooks/acme", content=body, headers={"X-OP-Signature": sign(SECRET, body)}
            )
            assert response.status_code == 202
            # The first turn is refused by the lock and keeps the ids.
            await asyncio.wait_for(resting.wait(), 60)
        assert reports == [] and _title(data_dir, 5) != "Deferred by a lock"
        proceed.set()  # end the rest; the kept ids are re-fetched on the next turn
        await asyncio.wait_for(refreshed.wait(), 60)
    assert [(r.requested, r.upserted) for r in reports] == [(1, 1)]
    assert _title(data_dir, 5) == "Deferred by a lock"
    assert waits[:3] == [3.0, 7.0, 3.0]  # coalesce, rest, coalesce again
