"""Re-reading named work packages at once (a webhook named them), with the tenant's credential.

The webhook only says *which* work package changed; its content is read here through the
tenant's own credential, so visibility and internal-comment rules apply as in any sync.
A named work package the account cannot see (deleted, or in a project it is not a member
of) is removed from the index if present and never added. The refresh commits the index
and records the new commit in the state database like a sync run does, so the next run
finds index and state in agreement; it does not count as a sync run (freshness and the
manifest stay the polling loop's).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

import httpx

from opindex.config import TenantConfig
from opindex.index import SCHEMA_VERSION, TenantIndex
from opindex.openproject import OpenProjectClient, stored_capabilities
from opindex.state import (
    CommitAgreement,
    IndexPointer,
    StateStore,
    compare_commit,
    tenant_lock,
    utc_now,
)
from opindex.sync.attachments import attachment_reader
from opindex.sync.changes import PendingChanges
from opindex.sync.locations import index_directory
from opindex.sync.sync_session import SyncSession
from opindex.sync.work_packages import KIND, fetch_work_packages

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class RefreshReport:
    """What a targeted refresh did; ``skipped`` says why it did nothing, if so."""

    requested: int
    upserted: int = 0
    removed: int = 0
    requests: int = 0
    skipped: str | None = None


async def refresh_work_packages(
    tenant: TenantConfig,
    data_dir: Path,
    ids: Collection[int],
    *,
    transport: httpx.AsyncBaseTransport | None = None,
) -> RefreshReport:
    """Fetch the named work packages and update the index. ``SyncInProgressError`` if a
    sync holds the tenant's lock (the caller retries later)."""
    wanted = sorted({wp_id for wp_id in ids if wp_id > 0})
    with tenant_lock(data_dir, tenant.name, purpose="webhook refresh"):
        state = StateStore.for_tenant(data_dir, tenant.name)
        try:
            return await _refresh(tenant, data_dir, state, wanted, transport)
        finally:
            state.close()


async def _refresh(
    tenant: TenantConfig,
    data_dir: Path,
    state: StateStore,
    wanted: list[int],
    transport: httpx.AsyncBaseTransport | None,
) -> RefreshReport:
    directory = index_directory(data_dir, tenant.name)
    live = directory.current()
    stored = state.get_capabilities()
    capabilities = stored_capabilities(stored.data) if stored is not None else None
    if live is None or capabilities is None or not wanted:
        return RefreshReport(len(wanted), skipped="no index yet; the first sync reads everything")
    with TenantIndex(directory) as index:
        pointer = state.get_index_pointer()
        opstamp = (await asyncio.to_thread(index.stats)).opstamp
        if (
            pointer is None
            or pointer.directory != live
            or compare_commit(opstamp, pointer) is not CommitAgreement.IN_SYNC
        ):
            return RefreshReport(len(wanted), skipped="the index needs a sync run first")
        known = {wp_id: entry for wp_id in wanted if (entry := state.get_known(KIND, wp_id))}
        changes = PendingChanges()
        client = OpenProjectClient(
            tenant.base_url, tenant.api_key.reveal(), auth_scheme=tenant.auth, transport=transport
        )
        try:
            async with client:
                session = SyncSession(
                    tenant=tenant,
                    client=client,
                    index=index,
                    known={KIND: known},
                    capabilities=capabilities,
                    started_at=utc_now(),
                    full=False,
                    trust_known=True,
                    changes=changes,
                    files=attachment_reader(tenant, client, index, state, utc_now, changes),
                )
                try:
                    found = await fetch_work_packages(session, wanted)
                    await session.remove(KIND, [wp_id for wp_id in wanted if wp_id not in found])
                finally:
                    if session.files is not None:
                        await asyncio.to_thread(session.files.close)
            info = await asyncio.to_thread(index.commit)
        except BaseException:
            await asyncio.to_thread(index.rollback)
            raise

        def record() -> None:
            with state.transaction():
                changes.apply(state)
                state.set_index_pointer(
                    IndexPointer(info.generation, SCHEMA_VERSION, info.opstamp, utc_now())
                )

        await asyncio.to_thread(record)
    counts = changes.counts().get(KIND)
    return RefreshReport(
        len(wanted),
        upserted=counts.upserted if counts else 0,
        removed=len(set(changes.deleted.get(KIND, set())) & set(known)),
        requests=client.request_count,
    )
