"""Signed webhooks from the sandbox, as OpenProject sends them after a change.

With ``--webhook-url`` (and ``--webhook-secret``), every ``/_sandbox/mutate`` upsert of a
work package sends ``work_package:created`` or ``work_package:updated`` with the work
package rendered in full (as OpenProject's System user renders it: every project, no
permission filtering), and an upsert of a project sends ``project:updated``. Like
OpenProject: one POST per event from a background task, ``X-OP-Signature: sha1=<hex>``
when a secret is set, the outcome only logged, no retries, no events for deletions.
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

import httpx

from opindex.sandbox.corpus import WorkPackage
from opindex.sandbox.hal_content import work_package_resource
from opindex.sandbox.hal_core import project_resource
from opindex.sandbox.store import SandboxStore
from opindex.webhook_signature import SIGNATURE_HEADER, sign

logger = logging.getLogger(__name__)
DELIVERY_TIMEOUT_SECONDS = 10.0


class WebhookSender:
    """Sends the webhook of one mutation in the background (fire and forget)."""

    def __init__(self, url: str, secret: str | None) -> None:
        self.url = url
        self._secret = secret
        self._tasks: set[asyncio.Task[None]] = set()
        self.sent = 0
        self.failed = 0

    def mutated(self, store: SandboxStore, kind: str, record: Any, *, created: bool) -> None:
        """Send the event an upsert of ``record`` (of ``kind``) causes, if any."""
        if kind == "work_packages" and isinstance(record, WorkPackage):
            action = "work_package:created" if created else "work_package:updated"
            payload = {"action": action, "work_package": work_package_resource(store, record)}
        elif kind == "projects":
            project = store.projects[record.id]
            payload = {"action": "project:updated", "project": project_resource(project)}
        else:
            return  # OpenProject has no wiki or meeting events
        body = json.dumps(payload).encode("utf-8")
        task = asyncio.create_task(self._post(body))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _post(self, body: bytes) -> None:
        headers = {"Content-Type": "application/json"}
        if self._secret:
            headers[SIGNATURE_HEADER] = sign(self._secret, body)
        try:
            async with httpx.AsyncClient(timeout=DELIVERY_TIMEOUT_SECONDS) as client:
                response = await client.post(self.url, content=body, headers=headers)
        except httpx.HTTPError as exc:
            self.failed += 1
            logger.warning("webhook to %s failed: %s", self.url, type(exc).__name__)
            return
        self.sent += 1
        if response.status_code >= 400:
            logger.warning("webhook to %s answered %d", self.url, response.status_code)
