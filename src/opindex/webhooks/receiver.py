"""The webhook endpoints of ``opindex serve --transport http`` and their re-fetch workers.

Each tenant with a ``webhook_path`` gets ``POST <path>``. A delivery is accepted only with
a valid ``X-OP-Signature`` (HMAC-SHA1 of the raw body with the tenant's secret, compared
in constant time); every delivery is counted in the tenant's state database as
``accepted``, ``refused`` or ``ignored``. An accepted delivery only queues the ids it
names: per tenant one worker waits ``coalesce_seconds`` for more deliveries, re-fetches
them all in one refresh, then rests ``min_interval_seconds`` before the next (so a burst
of deliveries costs a few refreshes, not one each). A refresh refused because a sync holds
the tenant's lock keeps its ids for the next turn. OpenProject never retries a delivery,
so the polling sync stays the source of truth; webhooks only shorten the wait.

Hostile input: the body is read chunk by chunk and refused (413) as soon as more than
MAX_BODY_BYTES arrived, whether announced by Content-Length or sent chunked, before any
signature check or parsing; JSON nested too deeply is refused (400); an id out of range
makes the delivery ``ignored``. A worker survives any exception of a re-fetch: it logs it,
records it for ``opindex status`` and goes on. Refusal warnings are throttled per tenant
(:mod:`opindex.webhooks.refusal_log`); every refusal is still counted, refusals written
together at most once per REFUSAL_COUNT_SECONDS (a forged flood costs one write a second,
not one each).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import httpx
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from opindex.config import Config, TenantConfig
from opindex.errors import OpindexError, SyncInProgressError
from opindex.service import (
    RefreshReport,
    count_webhook,
    record_background_outcome,
    refresh_work_packages,
    sync_tenant,
)
from opindex.webhook_signature import SIGNATURE_HEADER, signature_matches
from opindex.webhooks.events import Targets, targets_of
from opindex.webhooks.refusal_log import ThrottledWarnings

logger = logging.getLogger(__name__)

MAX_BODY_BYTES = 4 * 1024 * 1024
"""Larger deliveries are refused (a work package rendering is a few kilobytes)."""
REFUSAL_COUNT_SECONDS = 1.0
"""Refused deliveries are counted in memory and written together this often."""
COALESCE_SECONDS = 0.5
MIN_INTERVAL_SECONDS = 1.0
Sleep = Callable[[float], Awaitable[None]]
RefreshListener = Callable[[str, RefreshReport], None]


@dataclass
class _Pending:
    """What one tenant's worker still has to re-fetch."""

    work_packages: set[int] = field(default_factory=set)
    manifest: bool = False
    wake: asyncio.Event = field(default_factory=asyncio.Event)

    def add(self, targets: Targets) -> None:
        self.work_packages |= targets.work_packages
        self.manifest = self.manifest or targets.manifest
        self.wake.set()

    def take(self) -> Targets:
        taken = Targets(frozenset(self.work_packages), self.manifest)
        self.work_packages, self.manifest = set(), False
        return taken


class WebhookReceiver:
    """Routes and workers for every configured tenant with a webhook.

    Use ``async with receiver:`` around serving (it starts and stops the workers) and
    mount :meth:`routes`. ``on_refresh`` hears every finished refresh (tests, logs).
    """

    def __init__(
        self,
        config: Config,
        *,
        transport: httpx.AsyncBaseTransport | None = None,
        coalesce_seconds: float = COALESCE_SECONDS,
        min_interval_seconds: float = MIN_INTERVAL_SECONDS,
        sleep: Sleep = asyncio.sleep,
        on_refresh: RefreshListener | None = None,
        warnings: ThrottledWarnings | None = None,
    ) -> None:
        self._tenants = {t.webhook.path: t for t in config.tenants if t.webhook is not None}
        self._data_dir = config.data_dir
        self._transport = transport
        self._coalesce = coalesce_seconds
        self._interval = min_interval_seconds
        self._sleep = sleep
        self._on_refresh = on_refresh
        self._pending = {tenant.name: _Pending() for tenant in self._tenants.values()}
        self._workers: list[asyncio.Task[None]] = []
        self._warnings = warnings or ThrottledWarnings(logger)
        self._refusals: dict[str, int] = {}
        """Refused deliveries per tenant not yet written to its state database."""
        self._refusal_writer: asyncio.Task[None] | None = None
        self._unfailed: set[str] = set()
        """Tenants whose webhook failures are known to be cleared from their state."""

    @property
    def paths(self) -> tuple[str, ...]:
        """The webhook paths served."""
        return tuple(self._tenants)

    def routes(self) -> list[Route]:
        """One ``POST`` route per tenant webhook path."""
        return [Route(path, self._deliver, methods=["POST"]) for path in self._tenants]

    async def __aenter__(self) -> WebhookReceiver:
        for tenant in self._tenants.values():
            task = asyncio.create_task(self._work(tenant), name=f"webhooks:{tenant.name}")
            self._workers.append(task)
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        workers, self._workers = self._workers, []
        for task in workers:
            task.cancel()
        for task in workers:
            try:
                await task
            except asyncio.CancelledError:
                pass
            except Exception:  # _work ends only when cancelled; never fail the shutdown
                logger.exception("%s ended with an error", task.get_name())
        writer, self._refusal_writer = self._refusal_writer, None
        if writer is not None:
            writer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await writer
        await self._write_refusals()

    # --- deliveries -------------------------------------------------------------------

    async def _deliver(self, request: Request) -> Response:
        tenant = self._tenants[request.url.path.rstrip("/")]
        secret = tenant.webhook.secret.reveal() if tenant.webhook else ""
        declared = request.headers.get("content-length", "0")
        if declared.isdigit() and int(declared) > MAX_BODY_BYTES:
            return await self._refuse(tenant, 413, "the delivery is too large")
        try:
            body = await _read_at_most(request, MAX_BODY_BYTES)
        except ClientDisconnect:
            return await self._refuse(tenant, 400, "the sender left before the body ended")
        if body is None:
            return await self._refuse(tenant, 413, "the delivery is too large")
        if not signature_matches(secret, body, request.headers.get(SIGNATURE_HEADER)):
            return await self._refuse(
                tenant, 401, f"missing or wrong {SIGNATURE_HEADER}; check the webhook's secret"
            )
        try:
            payload = json.loads(body)
        except (ValueError, RecursionError):  # not UTF-8, not JSON, or nested too deeply
            return await self._refuse(tenant, 400, "the body is not JSON (or nests too deeply)")
        targets = targets_of(payload)
        if targets.empty:
            await self._count(tenant, "ignored")
            reason = targets.ignored_because or "the event names nothing opindex indexes"
            if targets.ignored_because is not None:
                self._warnings.warn(
                    f"{tenant.name}:ignored", f"{tenant.name}: webhook delivery ignored: {reason}"
                )
            return JSONResponse({"ignored": reason})
        await self._count(tenant, "accepted")
        self._pending[tenant.name].add(targets)
        return JSONResponse({"accepted": True}, status_code=202)

    async def _refuse(self, tenant: TenantConfig, status: int, reason: str) -> Response:
        self._warnings.warn(
            f"{tenant.name}:refused", f"{tenant.name}: webhook delivery refused: {reason}"
        )
        self._refusals[tenant.name] = self._refusals.get(tenant.name, 0) + 1
        if self._refusal_writer is None or self._refusal_writer.done():
            self._refusal_writer = asyncio.create_task(self._write_refusals_soon())
        return JSONResponse({"error": reason}, status_code=status)

    async def _write_refusals_soon(self) -> None:
        """Write the refusals once a second until none is left unwritten (those arriving
        during a write, or kept after a failed one, go with the next)."""
        while self._refusals:
            await self._sleep(REFUSAL_COUNT_SECONDS)
            await self._write_refusals()

    async def _write_refusals(self) -> None:
        refusals, self._refusals = self._refusals, {}
        for name, times in refusals.items():
            if not await asyncio.to_thread(_count, self._data_dir, name, "refused", times):
                self._refusals[name] = self._refusals.get(name, 0) + times

    async def _count(self, tenant: TenantConfig, outcome: str) -> None:
        await asyncio.to_thread(_count, self._data_dir, tenant.name, outcome)

    # --- re-fetching ------------------------------------------------------------------

    async def _work(self, tenant: TenantConfig) -> None:
        """Re-fetch what deliveries name, forever: no exception of a re-fetch ends it."""
        pending = self._pending[tenant.name]
        while True:
            await pending.wake.wait()
            pending.wake.clear()
            await self._sleep(self._coalesce)
            targets = pending.take()
            failure: Exception | None = None
            try:
                await self._refresh(tenant, targets)
            except SyncInProgressError:
                logger.info("%s: a sync holds the lock; re-fetching after it", tenant.name)
                pending.add(targets)
                await self._sleep(self._interval)
                continue
            except OpindexError as exc:
                # Polling stays the truth: the next sync run picks the change up anyway.
                logger.warning("%s: webhook re-fetch failed: %s", tenant.name, exc)
                failure = exc
            except Exception as exc:  # a bug must not end the tenant's webhooks
                logger.exception("%s: webhook re-fetch crashed; webhooks go on", tenant.name)
                failure = exc
            if failure is not None:
                self._unfailed.discard(tenant.name)
                await asyncio.to_thread(_record, self._data_dir, tenant.name, failure)
            elif tenant.name not in self._unfailed:
                self._unfailed.add(tenant.name)
                await asyncio.to_thread(_record, self._data_dir, tenant.name, None)
            await self._sleep(self._interval)

    async def _refresh(self, tenant: TenantConfig, targets: Targets) -> None:
        if targets.work_packages:
            report = await refresh_work_packages(
                tenant, self._data_dir, targets.work_packages, transport=self._transport
            )
            logger.info(
                "%s: webhook re-fetch of %d work packages: %d written, %d removed%s",
                tenant.name,
                report.requested,
                report.upserted,
                report.removed,
                f" (skipped: {report.skipped})" if report.skipped else "",
            )
            if self._on_refresh is not None:
                self._on_refresh(tenant.name, report)
        if targets.manifest:
            sync = await sync_tenant(tenant, self._data_dir, transport=self._transport)
            logger.info("%s: after a project webhook: %s", tenant.name, sync.summary())


async def _read_at_most(request: Request, limit: int) -> bytes | None:
    """The request body, read chunk by chunk; None as soon as more than *limit* bytes
    arrived (the rest is never read, so a huge or endless body costs no memory)."""
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            return None
        chunks.append(chunk)
    return b"".join(chunks)


def _record(data_dir: Path, tenant: str, failure: Exception | None) -> None:
    try:
        record_background_outcome(data_dir, tenant, "webhooks", datetime.now(UTC), failure)
    except Exception as exc:  # the state database may be the very thing failing
        logger.warning("%s: could not record the webhook re-fetch outcome: %s", tenant, exc)


def _count(data_dir: Path, tenant: str, outcome: str, times: int = 1) -> bool:
    """Count deliveries; False (and a warning) when the state database refused."""
    try:
        count_webhook(data_dir, tenant, outcome, datetime.now(UTC), times)
    except OpindexError as exc:
        logger.warning("%s: could not count %d webhook deliveries: %s", tenant, times, exc)
        return False
    return True
