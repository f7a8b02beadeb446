"""How a sync run ends: index and state committed together, or abandoned and recorded.

See the commit protocol (ARCHITECTURE invariant 6) in :mod:`opindex.state.store`: the
index commits first (and a fresh generation is published), then one SQLite transaction
stores everything that commit implies and marks the run succeeded. A failed run keeps the
last good index serving.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

from opindex.config import TenantConfig
from opindex.errors import OpindexError
from opindex.index import SCHEMA_VERSION, CommitInfo, TenantIndex, compacted
from opindex.moments import Clock
from opindex.state import IndexPointer, ManifestSummary, StateStore, SyncRun
from opindex.sync.manifest import ManifestResult
from opindex.sync.plan import SyncPlan
from opindex.sync.report import SyncReport
from opindex.sync.sync_session import SyncSession

logger = logging.getLogger(__name__)


async def commit_run(
    tenant: TenantConfig,
    index: TenantIndex,
    state: StateStore,
    plan: SyncPlan,
    run_id: int,
    session: SyncSession,
    manifest: ManifestResult,
    clock: Clock,
) -> SyncReport:
    changes, requests = session.changes, session.client.request_count
    session.progress.phase(tenant.name, "committing")
    info = await asyncio.to_thread(index.commit)
    served = index
    if plan.new_generation:
        served, info = await _publish(tenant, index, session, info)
    finished_at = clock()
    counts = changes.counts()

    def record() -> SyncRun:
        with state.transaction():
            changes.apply(state)
            state.set_index_pointer(
                IndexPointer(info.generation, SCHEMA_VERSION, info.opstamp, finished_at)
            )
            if plan.new_generation:
                state.clear_checkpoint()
            state.set_manifest_summary(
                ManifestSummary(
                    run_id,
                    finished_at,
                    manifest.listed,
                    manifest.added,
                    manifest.changed,
                    manifest.removed,
                    manifest.server_time,
                )
            )
            return state.finish_run(
                run_id, counts=counts, requests=requests, index_opstamp=info.opstamp
            )

    # Off the event loop: a large run stores many known records in this transaction.
    try:
        run = await asyncio.to_thread(record)
        stats = await asyncio.to_thread(served.stats)
    finally:
        if served is not index:  # the runner closes the index it opened
            served.close()
    return SyncReport(
        tenant=tenant.name,
        run_id=run_id,
        kind=plan.run_kind,
        reason=plan.reason,
        started_at=run.started_at,
        finished_at=run.finished_at or finished_at,
        counts=counts,
        documents=dict(stats.documents_per_kind),
        requests=requests,
        swept=True,
        generation=info.generation,
        opstamp=info.opstamp,
    )


async def _publish(
    tenant: TenantConfig, index: TenantIndex, session: SyncSession, info: CommitInfo
) -> tuple[TenantIndex, CommitInfo]:
    """Publish the run's fresh generation, copied first into one commit when its
    checkpoints left several segments (lighter to serve, DECISIONS D140). A copy that
    fails (a full disk) is discarded and the generation published as it is."""
    session.progress.phase(tenant.name, "compacting")
    try:
        copy = await asyncio.to_thread(compacted, index)
    except OpindexError as exc:
        logger.warning("%s: the index was not compacted: %s", tenant.name, exc)
        copy = None
    if copy is None:
        await asyncio.to_thread(index.publish)
        return index, info
    await asyncio.to_thread(copy.publish)  # removes the checkpointed generation
    return copy, await asyncio.to_thread(copy.commit)  # nothing pending: the commit's info


async def abandon_run(index: TenantIndex, plan: SyncPlan, *, keep: bool) -> None:
    """Drop uncommitted writes; remove an unpublished fresh generation unless ``keep``
    (it holds checkpoints the next run continues from)."""
    with contextlib.suppress(OpindexError, OSError):
        if plan.new_generation and not keep:
            await asyncio.to_thread(index.discard)
        else:
            await asyncio.to_thread(index.rollback)
