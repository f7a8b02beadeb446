"""The state one sandbox app serves from, reachable from every request."""

from __future__ import annotations

from dataclasses import dataclass, field

from starlette.requests import Request

from opindex.sandbox.options import SandboxOptions
from opindex.sandbox.store import SandboxStore
from opindex.sandbox.traffic import FaultBoard, RequestStats
from opindex.sandbox.webhook_sender import WebhookSender
from opindex.sandbox.wp_query import WorkPackageQuery


@dataclass(slots=True)
class SandboxState:
    """Everything a request handler needs; kept on ``app.state.sandbox``."""

    store: SandboxStore
    options: SandboxOptions
    stats: RequestStats = field(default_factory=RequestStats)
    faults: FaultBoard = field(default_factory=FaultBoard)
    wp_query: WorkPackageQuery = field(init=False)
    webhooks: WebhookSender | None = field(init=False)

    def __post_init__(self) -> None:
        self.wp_query = WorkPackageQuery(self.store)
        url, secret = self.options.webhook_url, self.options.webhook_secret
        self.webhooks = WebhookSender(url, secret) if url is not None else None


def sandbox_of(request: Request) -> SandboxState:
    """The sandbox state of the app serving *request*."""
    state = request.app.state.sandbox
    if not isinstance(state, SandboxState):  # pragma: no cover - wiring error
        raise TypeError("app.state.sandbox is not a SandboxState")
    return state
