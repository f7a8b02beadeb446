"""One sync or rebuild of one tenant: lock, plan, read OpenProject, commit, record the run.

Commit protocol (see :mod:`opindex.state.store`): documents go to the index writer as
they are read, but nothing is committed until every step succeeded. Then the index is
committed (and, for a fresh generation, published), and only then one SQLite
transaction stores the new high-water marks, known records and the index pointer and
marks the run succeeded. A run that fails or is killed before the index commit leaves
the last good index serving and the state untouched (apart from the run recorded as
failed); a crash between the two commits is detected and repaired by the next run
(:mod:`opindex.sync.plan`).
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import httpx

from opindex.config import TenantConfig
from opindex.errors import (
    AuthenticationError,
    IndexUnavailableError,
)
from opindex.index import IndexDirectory, TenantIndex, generation_number
from opindex.moments import Clock
from opindex.openproject import (
    OpenProjectClient,
    ServerCapabilities,
    detect_capabilities,
    stored_capabilities,
)
from opindex.search import KINDS
from opindex.state import RunKind, StateStore, tenant_directory, tenant_lock, utc_now
from opindex.sync import work_packages
from opindex.sync.attachments import RunBudget, attachment_reader
from opindex.sync.changes import PendingChanges, load_known
from opindex.sync.checkpoints import (
    CHECKPOINT_RECORDS,
    CHECKPOINT_SECONDS,
    Checkpointer,
    Resume,
    find_resume,
)
from opindex.sync.locations import index_directory
from opindex.sync.manifest import ManifestResult, sync_by_manifest
from opindex.sync.meetings import sync_meetings
from opindex.sync.plan import SyncPlan, decide
from opindex.sync.progress import NullProgress, SyncProgress
from opindex.sync.projects import sync_projects
from opindex.sync.publications import sync_publications
from opindex.sync.report import SyncReport
from opindex.sync.run_end import abandon_run, commit_run
from opindex.sync.space_reserve import SpaceReserve
from opindex.sync.state_access import open_state, record_failure
from opindex.sync.status import SWEEP_RESOURCE
from opindex.sync.sweep import sweep_due
from opindex.sync.sync_session import DEFAULT_CONCURRENCY, SyncSession
from opindex.sync.wiki import sync_wiki
from opindex.sync.work_packages import IDS_PER_REQUEST

logger = logging.getLogger(__name__)

CAPABILITIES_MAX_AGE = timedelta(hours=24)
"""Server capabilities are detected again when older than this (and on full syncs)."""


@dataclass(frozen=True, slots=True)
class RunOptions:
    """How to run: progress sink, clock, HTTP transport (tests), requests in flight, and
    how often a full sync into a fresh generation checkpoints (records, seconds)."""

    progress: SyncProgress
    clock: Clock
    transport: httpx.AsyncBaseTransport | None
    concurrency: int
    checkpoint_records: int = CHECKPOINT_RECORDS
    checkpoint_seconds: float = CHECKPOINT_SECONDS
    file_budget: RunBudget = field(default_factory=RunBudget)


async def sync_tenant(
    tenant: TenantConfig,
    data_dir: Path,
    *,
    full: bool = False,
    progress: SyncProgress | None = None,
    clock: Clock = utc_now,
    transport: httpx.AsyncBaseTransport | None = None,
    concurrency: int = DEFAULT_CONCURRENCY,
    checkpoint_records: int = CHECKPOINT_RECORDS,
    checkpoint_seconds: float = CHECKPOINT_SECONDS,
    file_budget: RunBudget | None = None,
) -> SyncReport:
    """Bring the tenant's index up to date (incremental unless ``full`` or necessary).

    Takes the tenant's lock (``SyncInProgressError`` if another sync or rebuild holds
    it). Raises the ``OpindexError`` that made the run fail; the run is then recorded as
    failed with its reason and the last good index keeps serving. An unfinished full
    sync of an earlier run is continued from its checkpoint whatever was asked.
    *file_budget*: what the run may download of attached files (the rest waits).
    """
    options = RunOptions(
        progress or NullProgress(),
        clock,
        transport,
        concurrency,
        checkpoint_records,
        checkpoint_seconds,
        file_budget or RunBudget(),
    )
    return await _locked_run(tenant, data_dir, "full" if full else "incremental", options)


async def rebuild_tenant(
    tenant: TenantConfig,
    data_dir: Path,
    *,
    progress: SyncProgress | None = None,
    clock: Clock = utc_now,
    transport: httpx.AsyncBaseTransport | None = None,
    concurrency: int = DEFAULT_CONCURRENCY,
    checkpoint_records: int = CHECKPOINT_RECORDS,
    checkpoint_seconds: float = CHECKPOINT_SECONDS,
) -> SyncReport:
    """Build a fresh index generation beside the live one with a full sync, then swap
    it in atomically. Searches keep using the old generation until the swap."""
    options = RunOptions(
        progress or NullProgress(),
        clock,
        transport,
        concurrency,
        checkpoint_records,
        checkpoint_seconds,
    )
    return await _locked_run(tenant, data_dir, "rebuild", options)


async def _locked_run(
    tenant: TenantConfig, data_dir: Path, requested: RunKind, options: RunOptions
) -> SyncReport:
    purpose = "rebuild" if requested == "rebuild" else "sync"
    with tenant_lock(data_dir, tenant.name, purpose=purpose):
        SpaceReserve(tenant_directory(data_dir, tenant.name)).keep()  # before any write
        state = open_state(
            tenant.name, data_dir, rebuild=requested == "rebuild", clock=options.clock
        )
        try:
            return await _run(tenant, data_dir, state, requested, options)
        finally:
            state.close()
            options.progress.done()


def _remove_abandoned_generations(directory: IndexDirectory, tenant: str, keep: str | None) -> None:
    """Remove generations newer than the live one, but ``keep`` (a checkpointed one to
    resume): a rebuild killed before publishing left them, since the tenant lock held here
    rules out one in progress. (Without a live one, the next publish removes every older
    generation anyway.)"""
    try:
        live = directory.current()
    except IndexUnavailableError:
        return
    if live is None:
        return
    live_number = generation_number(live) or 0
    for name in directory.generations():
        if name != keep and (generation_number(name) or 0) > live_number:
            logger.warning("%s: removing generation %s of an unfinished rebuild", tenant, name)
            directory.discard(name)


def _inspect_live(
    directory: IndexDirectory,
) -> tuple[str | None, IndexUnavailableError | None, int | None]:
    """The live generation's name, why it cannot be read (if so), and its opstamp."""
    try:
        live = directory.current()
    except IndexUnavailableError as exc:
        return "unreadable", exc, None
    if live is None:
        return None, None, None
    try:
        with TenantIndex(directory) as index:
            index.check_complete()  # the tenant lock held here rules out a commit under way
            return live, None, index.stats().opstamp
    except IndexUnavailableError as exc:
        return live, exc, None


async def _run(
    tenant: TenantConfig,
    data_dir: Path,
    state: StateStore,
    requested: RunKind,
    options: RunOptions,
) -> SyncReport:
    interrupted = state.mark_interrupted_runs()
    if interrupted:
        logger.warning("%s: %d earlier run(s) ended without finishing", tenant.name, interrupted)
    directory = index_directory(data_dir, tenant.name)
    resume = find_resume(state, directory, tenant.name, rebuild=requested == "rebuild")
    _remove_abandoned_generations(
        directory, tenant.name, resume.checkpoint.generation if resume else None
    )
    live, problem, opstamp = _inspect_live(directory)
    started_at = options.clock()
    plan = (
        resume.plan()
        if resume is not None
        else decide(
            requested,
            live_generation=live,
            live_problem=problem,
            live_opstamp=opstamp,
            pointer=state.get_index_pointer(),
            sweep_due=sweep_due(
                state.get_high_water(SWEEP_RESOURCE),
                tenant.deletion_sweep_interval_seconds,
                started_at,
            ),
        )
    )
    logger.info("%s: %s sync: %s", tenant.name, plan.run_kind, plan.reason)
    reserve = SpaceReserve(tenant_directory(data_dir, tenant.name))
    run = state.start_run(plan.run_kind)
    index: TenantIndex | None = None
    checkpointer: Checkpointer | None = None
    client = OpenProjectClient(
        tenant.base_url,
        tenant.api_key.reveal(),
        auth_scheme=tenant.auth,
        transport=options.transport,
    )
    changes = PendingChanges(replace_known=plan.new_generation)
    try:
        if resume is not None:
            index = TenantIndex(directory, generation=resume.checkpoint.generation)
        elif plan.new_generation:
            index = TenantIndex.create_generation(directory)
        else:
            index = TenantIndex(directory)
        if plan.new_generation:
            checkpointer = Checkpointer(
                state,
                index,
                changes,
                "rebuild" if plan.run_kind == "rebuild" else "full",
                started_at,
                options.clock,
                options.checkpoint_records,
                options.checkpoint_seconds,
                resume.checkpoint if resume is not None else None,
            )
        async with client:
            session = await _open_session(
                tenant, client, index, state, plan, options, started_at, changes
            )
            try:
                manifest = await _read_everything(session, plan, state, resume, checkpointer)
            finally:
                if session.files is not None:
                    await asyncio.to_thread(session.files.close)
        return await commit_run(
            tenant, index, state, plan, run.id, session, manifest, options.clock
        )
    except BaseException as exc:
        # Record first: abandoning awaits a thread, and a second cancellation (a server
        # shutting down) could cut it short and leave the run "running".
        recorded = record_failure(state, run.id, exc, changes, client.request_count)
        if index is not None:
            keep = checkpointer is not None and checkpointer.count > 0
            await abandon_run(index, plan, keep=keep)
        if not recorded:  # a full disk: free what the run wrote and the reserve, retry
            reserve.release()
            record_failure(state, run.id, exc, changes, client.request_count, final=True)
        raise
    finally:
        if index is not None:
            index.close()


async def _open_session(
    tenant: TenantConfig,
    client: OpenProjectClient,
    index: TenantIndex,
    state: StateStore,
    plan: SyncPlan,
    options: RunOptions,
    started_at: datetime,
    changes: PendingChanges,
) -> SyncSession:
    """Check the account, settle the server capabilities, load the known records."""
    options.progress.phase(tenant.name, "checking the account")
    user = await client.me()
    account: dict[str, Any] = {"id": user.id, "login": user.login}
    stored = state.get_capabilities()
    stored_data = dict(stored.data) if stored is not None else {}
    pinned = stored_data.get("account")
    if isinstance(pinned, dict) and pinned.get("id") != user.id and not plan.new_generation:
        raise AuthenticationError(
            f"the credential of tenant {tenant.name!r} now belongs to {user.login!r}, but its "
            f"index was built as {pinned.get('login')!r}; run `opindex rebuild --tenant "
            f"{tenant.name}` to rebuild the index as the new account"
        )
    known = {} if plan.new_generation else await asyncio.to_thread(load_known, state, KINDS)
    capabilities = _stored_capabilities(stored_data, options.clock())
    capabilities_data: dict[str, Any] | None = None
    if plan.full or capabilities is None:
        options.progress.phase(tenant.name, "detecting server capabilities")
        wiki_ids = sorted(known.get("wiki_page", {}))[:5]
        capabilities = await detect_capabilities(client, wiki_page_ids=wiki_ids)
        capabilities_data = {"server": capabilities.model_dump(mode="json"), "account": account}
    elif pinned != account:
        capabilities_data = {"account": account}
    session = SyncSession(
        tenant=tenant,
        client=client,
        index=index,
        known=known,
        capabilities=capabilities,
        started_at=started_at,
        full=plan.full,
        trust_known=plan.trust_known,
        progress=options.progress,
        concurrency=options.concurrency,
        changes=changes,
        files=attachment_reader(
            tenant, client, index, state, options.clock, changes, options.file_budget
        ),
    )
    changes.capabilities = capabilities_data
    return session


def _stored_capabilities(data: dict[str, Any], now: datetime) -> ServerCapabilities | None:
    """The stored server capabilities if present, readable and recent enough."""
    capabilities = stored_capabilities(data)
    if capabilities is None or now - capabilities.detected_at > CAPABILITIES_MAX_AGE:
        return None
    return capabilities


async def _read_everything(
    session: SyncSession,
    plan: SyncPlan,
    state: StateStore,
    resume: Resume | None,
    checkpointer: Checkpointer | None,
) -> ManifestResult:
    """Projects, work packages (by manifest), meetings, wiki pages. Returns what the
    work-package manifest comparison found."""
    tenant, progress, changes = session.tenant, session.progress, session.changes
    progress.phase(tenant.name, "projects")
    visibility_changed = await sync_projects(session)

    progress.phase(tenant.name, "work packages")
    # The whole listing at least every sweep interval, and when project visibility moved.
    listing_due = plan.sweep or visibility_changed
    manifest = await sync_by_manifest(
        session,
        resumed=resume.versions if resume is not None else None,
        checkpoint=checkpointer,
        chunk=checkpointer.every_records if checkpointer is not None else IDS_PER_REQUEST,
        mark=None if listing_due else state.get_high_water(work_packages.RESOURCE),
    )
    if manifest.server_time is not None:
        # The next run's mark: never ahead of the server's clock minus the margin.
        margin = timedelta(seconds=tenant.sync_safety_margin_seconds)
        changes.high_water[work_packages.RESOURCE] = manifest.server_time - margin
    if manifest.complete:
        changes.high_water[SWEEP_RESOURCE] = session.started_at

    progress.phase(tenant.name, "meetings")
    await sync_meetings(session)

    progress.phase(tenant.name, "news, documents, versions")
    await sync_publications(session)
    if not plan.new_generation:  # a new generation reads every file anyway
        progress.phase(tenant.name, "attached files left by earlier runs")
        await session.read_deferred_files()

    progress.phase(tenant.name, "wiki pages")
    last_success = state.last_successful_run()
    await sync_wiki(
        session,
        state.get_wiki_discovery(),
        # When the last run ended: pages a long full sync read are fresh, not a backlog.
        last_run_at=last_success.finished_at if last_success is not None else None,
        refresh_all=visibility_changed,
    )
    return manifest
