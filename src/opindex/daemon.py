"""Background sync daemon: each tenant's incremental sync on an APScheduler interval.

The daemon runs inside the MCP server's lifespan (it needs a running event loop). Every
tenant gets one interval job (``sync_interval_seconds``) with ``max_instances=1`` (an
overlapping run is skipped, never queued), ``coalesce=True`` (missed runs collapse into
one) and a small jitter so several tenants do not hit OpenProject at the same instant.

A sync runs on its own event loop in a worker thread, so a long commit never stalls the
server's loop. Tenants whose index is missing or stale are synced at start. The sync takes
the tenant's lock, so a cron ``opindex sync`` running at the same moment is refused (or
refuses the daemon's run); a refused run is logged and the next interval tries again.

A second job per tenant re-reads its live index generation against its checksums every
hour at a bounded rate (:mod:`opindex.sync.verification`); damage found triggers a sync
at once, which builds a new generation. Damage a search finds moves the tenant's next
scheduled sync to now (``request_sync``): one prompt, however many searches saw it.

No exception ends a job: a scheduled sync or verification that fails is logged once,
recorded in the tenant's state database (``opindex status`` and the status tool show it
until the job succeeds again), and the job runs again at its next interval.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import httpx

from opindex.config import Config, TenantConfig
from opindex.errors import IndexDamagedError, OpindexError, SyncInProgressError
from opindex.service import (
    VERIFY_BYTES_PER_SECOND,
    VERIFY_INTERVAL_SECONDS,
    Pacer,
    SyncReport,
    record_background_outcome,
    sync_tenant,
    tenant_status,
    verify_live_generation,
)

if TYPE_CHECKING:
    from apscheduler.schedulers.asyncio import AsyncIOScheduler

logger = logging.getLogger(__name__)

MAX_JITTER_SECONDS = 30
"""Upper bound of the random delay added to each scheduled run."""
STOP_TIMEOUT_SECONDS = 30.0
"""How long :meth:`SyncDaemon.stop` waits for a cancelled sync to clean up."""

TASKS = ("sync", "verification")
"""The daemon's background jobs, as recorded on failure."""
Outcome = Literal["succeeded", "refused", "failed", "cancelled"]
SyncListener = Callable[["SyncOutcome"], None]


@dataclass(frozen=True, slots=True)
class SyncOutcome:
    """How one daemon-run sync of one tenant ended.

    ``refused``: another process (a cron ``opindex sync``, a rebuild) held the tenant's
    lock. ``error`` is the error's message for ``refused``/``failed`` runs; it never holds
    a credential (library errors do not carry them).
    """

    tenant: str
    outcome: Outcome
    started_at: datetime
    finished_at: datetime
    report: SyncReport | None = None
    error: str | None = None


def jitter_for(interval_seconds: int) -> int:
    """A tenth of the interval, at most MAX_JITTER_SECONDS (0 for intervals under 10 s)."""
    return min(interval_seconds // 10, MAX_JITTER_SECONDS)


class SyncDaemon:
    """Schedules incremental syncs of ``tenants`` (default: every configured tenant).

    ``on_sync`` is called on the server's event loop after every run, whatever its
    outcome (the server uses it to log; tests use it to wait for a run). ``transport``
    is handed to the OpenProject client (tests only).
    """

    def __init__(
        self,
        config: Config,
        tenants: Sequence[str] | None = None,
        *,
        on_sync: SyncListener | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        names = config.tenant_names if tenants is None else tuple(tenants)
        self._tenants: tuple[TenantConfig, ...] = tuple(config.tenant(name) for name in names)
        self._data_dir = config.data_dir
        self._on_sync = on_sync
        self._transport = transport
        self._scheduler: AsyncIOScheduler | None = None
        self._pool: concurrent.futures.ThreadPoolExecutor | None = None
        self._running: dict[str, _ThreadedSync] = {}
        self._outcomes: dict[str, SyncOutcome] = {}
        self._failing: set[str] = {f"{task}:{t.name}" for t in self._tenants for task in TASKS}
        """``task:tenant`` whose failure may be on record (checked once at start)."""

    @property
    def tenants(self) -> tuple[str, ...]:
        """Names of the tenants this daemon keeps in sync."""
        return tuple(tenant.name for tenant in self._tenants)

    @property
    def running(self) -> bool:
        """True between :meth:`start` and :meth:`stop`."""
        return self._scheduler is not None

    def last_outcome(self, tenant: str) -> SyncOutcome | None:
        """How the latest daemon-run sync of ``tenant`` ended, if one ran."""
        return self._outcomes.get(tenant)

    async def start(self) -> None:
        """Schedule every tenant; tenants without a fresh index sync right away."""
        if self._scheduler is not None:
            return
        self._pool = concurrent.futures.ThreadPoolExecutor(
            max_workers=max(1, len(self._tenants)), thread_name_prefix="opindex-sync"
        )
        from apscheduler.schedulers.asyncio import AsyncIOScheduler  # a server with sync only

        scheduler = AsyncIOScheduler(timezone=UTC)
        now = datetime.now(UTC)
        for tenant in self._tenants:
            interval = tenant.sync_interval_seconds
            first_run = now if self._needs_sync_now(tenant) else now + timedelta(seconds=interval)
            scheduler.add_job(
                self._run,
                "interval",
                seconds=interval,
                jitter=jitter_for(interval),
                args=[tenant],
                id=f"sync:{tenant.name}",
                name=f"incremental sync of {tenant.name}",
                max_instances=1,
                coalesce=True,
                misfire_grace_time=max(1, interval),
                next_run_time=first_run,
            )
            logger.info(
                "%s: incremental sync every %d s (first run %s)",
                tenant.name,
                interval,
                "now" if first_run == now else f"in {interval} s",
            )
            scheduler.add_job(
                self._verify_job,
                "interval",
                seconds=VERIFY_INTERVAL_SECONDS,
                jitter=jitter_for(VERIFY_INTERVAL_SECONDS),
                args=[tenant.name],
                id=f"verify:{tenant.name}",
                name=f"index verification of {tenant.name}",
                max_instances=1,
                coalesce=True,
            )
        scheduler.start()
        self._scheduler = scheduler

    async def stop(self) -> None:
        """Stop scheduling, cancel running syncs and wait for them to clean up."""
        scheduler, self._scheduler = self._scheduler, None
        if scheduler is None:
            return
        scheduler.shutdown(wait=False)
        running = list(self._running.values())
        for run in running:
            run.cancel()
        futures = [run.future for run in running if run.future is not None]
        if futures:
            wrapped = [asyncio.wrap_future(future) for future in futures]
            done, _ = await asyncio.wait(wrapped, timeout=STOP_TIMEOUT_SECONDS)
            for finished in done:  # retrieved here, so asyncio never reports them unread
                if not finished.cancelled() and finished.exception() is not None:
                    logger.debug("a cancelled sync ended with %r", finished.exception())
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None

    async def sync_now(self, tenant: str) -> SyncOutcome:
        """Run one sync of ``tenant`` at once (outside the schedule) and return its outcome."""
        for candidate in self._tenants:
            if candidate.name == tenant:
                return await self._run(candidate)
        raise OpindexError(f"the daemon does not sync tenant {tenant!r}")

    async def verify_now(self, tenant: str) -> IndexDamagedError | None:
        """Re-read the tenant's live index generation against its checksums (at most
        VERIFY_BYTES_PER_SECOND, in a worker thread); when it is damaged, record that and
        sync the tenant at once, which builds a new generation. Returns the damage."""
        pacer = Pacer(VERIFY_BYTES_PER_SECOND)
        damage = await asyncio.to_thread(verify_live_generation, self._data_dir, tenant, pace=pacer)
        if damage is not None:
            logger.error("%s: %s; syncing now", tenant, damage)
            if tenant not in self._running and self._pool is not None:
                await self.sync_now(tenant)
        return damage

    async def _verify_job(self, tenant: str) -> None:
        """The scheduled verification: any failure is logged once and recorded, never
        raised (the job runs again at its next interval)."""
        try:
            await self.verify_now(tenant)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            if isinstance(exc, OpindexError):
                logger.error("%s: index verification failed: %s", tenant, exc)
            else:
                logger.exception("%s: index verification crashed", tenant)
            await self._record_background(tenant, "verification", exc)
        else:
            await self._record_background(tenant, "verification", None)

    async def _record_background(
        self, tenant: str, task: str, failure: BaseException | None
    ) -> None:
        """Record a background job's failure (or, once after a failure, its success)."""
        key = f"{task}:{tenant}"
        if failure is None and key not in self._failing:
            return
        try:
            await asyncio.to_thread(
                record_background_outcome, self._data_dir, tenant, task, datetime.now(UTC), failure
            )
        except Exception as exc:  # the state database may be the very thing failing
            logger.warning("%s: could not record the %s outcome: %s", tenant, task, exc)
            return
        if failure is None:
            self._failing.discard(key)
        else:
            self._failing.add(key)

    def request_sync(self, tenant: str) -> bool:
        """Move *tenant*'s next scheduled sync to now (damage found by a search); False
        when it cannot (not running, not this daemon's tenant) or is running already (its
        run builds the new generation). Repeated requests before it starts are one run."""
        scheduler = self._scheduler
        if scheduler is None or tenant not in self.tenants or tenant in self._running:
            return False
        job = scheduler.get_job(f"sync:{tenant}")
        if job is None:
            return False
        logger.warning("%s: a search found the index damaged; syncing now", tenant)
        job.modify(next_run_time=datetime.now(UTC))
        return True

    def _needs_sync_now(self, tenant: TenantConfig) -> bool:
        try:
            return tenant_status(tenant, self._data_dir).freshness != "fresh"
        except OpindexError as exc:
            logger.warning("%s: cannot read the index status (%s); syncing now", tenant.name, exc)
            return True

    async def _run(self, tenant: TenantConfig) -> SyncOutcome:
        """One scheduled run: sync in a worker thread, record and report the outcome."""
        if self._pool is None:
            raise OpindexError("the sync daemon is not running")
        started = datetime.now(UTC)
        run = _ThreadedSync(tenant, self._data_dir, self._transport)
        self._running[tenant.name] = run
        try:
            report = await run.start(self._pool)
            if report is None:  # cancelled by stop(): an ordinary shutdown, not an error
                logger.info("%s: sync cancelled; the last good index keeps serving", tenant.name)
                outcome = SyncOutcome(tenant.name, "cancelled", started, datetime.now(UTC))
                self._record(outcome)
                return outcome
        except asyncio.CancelledError:
            run.cancel()
            outcome = SyncOutcome(tenant.name, "cancelled", started, datetime.now(UTC))
            self._record(outcome)
            if self._scheduler is None:
                # stop() shut the scheduler down, which cancels its job tasks: an ordinary
                # shutdown (a client disconnecting), so no traceback in the log.
                return outcome
            raise
        except Exception as exc:
            outcome = _failure(tenant.name, started, exc)
            if not isinstance(exc, OpindexError):  # a crash before the run was recorded
                await self._record_background(tenant.name, "sync", exc)
        else:
            logger.info("%s", report.summary())
            outcome = SyncOutcome(
                tenant.name, "succeeded", started, datetime.now(UTC), report=report
            )
            await self._record_background(tenant.name, "sync", None)
        finally:
            if self._running.get(tenant.name) is run:
                del self._running[tenant.name]
        self._record(outcome)
        return outcome

    def _record(self, outcome: SyncOutcome) -> None:
        self._outcomes[outcome.tenant] = outcome
        if self._on_sync is not None:
            try:
                self._on_sync(outcome)
            except Exception:
                logger.exception("%s: the sync listener failed", outcome.tenant)


def _failure(tenant: str, started: datetime, error: Exception) -> SyncOutcome:
    """Log a run that did not succeed and describe it (a refusal is not a failure)."""
    finished = datetime.now(UTC)
    if isinstance(error, SyncInProgressError):
        logger.info("%s: sync skipped, another sync holds the lock: %s", tenant, error)
        return SyncOutcome(tenant, "refused", started, finished, error=str(error))
    if isinstance(error, OpindexError):
        logger.error("%s: sync failed: %s", tenant, error)
        return SyncOutcome(tenant, "failed", started, finished, error=str(error))
    logger.exception("%s: sync crashed", tenant, exc_info=error)
    return SyncOutcome(
        tenant, "failed", started, finished, error=f"unexpected {type(error).__name__}"
    )


class _ThreadedSync:
    """One ``sync_tenant`` call on a private event loop in a worker thread, cancellable
    from the server's loop (the cancellation reaches the sync as ``CancelledError``, so it
    abandons its uncommitted writes and records the run as failed)."""

    def __init__(
        self, tenant: TenantConfig, data_dir: Path, transport: httpx.AsyncBaseTransport | None
    ) -> None:
        self._tenant = tenant
        self._data_dir = data_dir
        self._transport = transport
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._task: asyncio.Task[Any] | None = None
        self._cancelled = False
        self.future: concurrent.futures.Future[SyncReport | None] | None = None

    async def start(self, pool: concurrent.futures.ThreadPoolExecutor) -> SyncReport | None:
        """The sync's report, or None if :meth:`cancel` stopped it."""
        self.future = pool.submit(self._work)
        return await asyncio.wrap_future(self.future)

    def cancel(self) -> None:
        with self._lock:
            self._cancelled = True
            if self._loop is not None and self._task is not None:
                self._loop.call_soon_threadsafe(self._task.cancel)

    def _work(self) -> SyncReport | None:
        try:
            return asyncio.run(self._main())
        except asyncio.CancelledError:
            if self._cancelled:
                return None  # quiet: the run is already recorded as interrupted
            raise

    async def _main(self) -> SyncReport:
        with self._lock:
            if self._cancelled:
                raise asyncio.CancelledError
            self._loop = asyncio.get_running_loop()
            self._task = asyncio.current_task()
        return await sync_tenant(self._tenant, self._data_dir, transport=self._transport)
