"""Tenant operations for the edges besides search: reach the server, count webhooks,
record failures of background tasks.

Sync, rebuild, status and verification are the syncer's own functions; the service
exports them (``opindex.service``) so that the command line, the daemon, the webhook
receiver and the demo reach every tenant operation through this one package.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from opindex.config import TenantConfig
from opindex.state import StateStore

if TYPE_CHECKING:
    from opindex.openproject import User


async def reach_tenant(tenant: TenantConfig) -> User:
    """The account *tenant*'s credential signs in as, asked once without retries (a
    diagnosis should name the first problem at once). Raises ``OpindexError``."""
    # The client loads on first use, with httpx (DECISIONS D159).
    from opindex.openproject import ApiKeyCredential, OpenProjectClient, RetryPolicy

    credential = ApiKeyCredential(tenant.api_key.reveal(), tenant.auth)
    one_try = RetryPolicy(max_attempts=1)
    async with OpenProjectClient(tenant.base_url, credential, retry=one_try) as client:
        return await client.me()


def count_webhook(data_dir: Path, tenant: str, outcome: str, now: datetime, times: int = 1) -> None:
    """Count *times* webhook deliveries of *tenant* by *outcome* in its state database
    (shown by ``opindex status``). Raises ``StateError``."""
    with StateStore.for_tenant(data_dir, tenant) as state:
        state.count_webhook(outcome, now, times)


def record_background_outcome(
    data_dir: Path, tenant: str, task: str, now: datetime, error: BaseException | None
) -> None:
    """Record in *tenant*'s state database that background *task* failed with *error*
    (shown by ``opindex status`` and the status tool until the task succeeds again), or
    with ``error=None`` that it succeeded. Raises ``StateError``."""
    with StateStore.for_tenant(data_dir, tenant) as state:
        if error is None:
            state.clear_background_failure(task)
        else:
            state.record_background_failure(task, f"{type(error).__name__}: {error}", now)
