"""What happens to every API request before it is answered: counting, latency, injected faults."""

from __future__ import annotations

import asyncio
from collections import Counter
from dataclasses import dataclass, field

from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from opindex.sandbox.hal_core import error_body

API_PREFIX = "/api/v3"

# Error names (and messages) of statuses a fault can inject.
FAULT_ERRORS: dict[int, tuple[str, str]] = {
    400: ("BadRequest", "Bad request."),
    401: ("Unauthenticated", "You did not provide the correct credentials."),
    403: ("MissingPermission", "You are not authorized to access this resource."),
    404: ("NotFound", "The requested resource could not be found."),
    409: ("UpdateConflict", "Your changes could not be saved."),
    429: ("TooManyRequests", "You have exceeded the number of allowed requests."),
    500: ("InternalServerError", "An internal error has occurred."),
    502: ("BadGateway", "The upstream server sent an invalid response."),
    503: ("ServiceUnavailable", "The service is temporarily unavailable."),
    504: ("GatewayTimeout", "The upstream server did not answer in time."),
}


@dataclass(slots=True)
class RequestStats:
    """How many API requests arrived, in total and per literal path (ids kept)."""

    requests: int = 0
    by_path: Counter[str] = field(default_factory=Counter)

    def record(self, path: str) -> None:
        self.requests += 1
        self.by_path[path] += 1

    def reset(self) -> None:
        self.requests = 0
        self.by_path.clear()

    def as_json(self) -> dict[str, object]:
        return {"requests": self.requests, "by_path": dict(self.by_path)}


@dataclass(slots=True)
class Fault:
    """The next *count* requests under *path_prefix* hang and/or fail with *status*."""

    path_prefix: str
    count: int
    status: int | None = None
    retry_after: int | None = None
    hang: float | None = None


@dataclass(slots=True)
class FaultBoard:
    """Pending faults, consumed first-in first-out by matching requests."""

    pending: list[Fault] = field(default_factory=list)

    def add(self, fault: Fault) -> None:
        self.pending.append(fault)

    def clear(self) -> None:
        self.pending.clear()

    def take(self, path: str) -> Fault | None:
        """Consume one use of the first fault matching *path*."""
        for fault in self.pending:
            if path.startswith(fault.path_prefix):
                fault.count -= 1
                if fault.count <= 0:
                    self.pending.remove(fault)
                return fault
        return None


def fault_response(status: int, retry_after: int | None) -> JSONResponse:
    """The error response a fault injects, with ``Retry-After`` if the fault gives one."""
    name, message = FAULT_ERRORS.get(status, ("InternalServerError", "Injected failure."))
    headers = {"Retry-After": str(retry_after)} if retry_after is not None else {}
    return JSONResponse(
        error_body(name, message),
        status_code=status,
        headers=headers,
        media_type="application/hal+json",
    )


class TrafficMiddleware:
    """ASGI middleware: counts ``/api/v3`` requests, adds latency, injects pending faults."""

    def __init__(
        self, app: ASGIApp, *, stats: RequestStats, faults: FaultBoard, latency_ms: float
    ) -> None:
        self.app = app
        self.stats = stats
        self.faults = faults
        self.latency = latency_ms / 1000.0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "") if scope["type"] == "http" else ""
        if not (path == API_PREFIX or path.startswith(API_PREFIX + "/")):
            await self.app(scope, receive, send)
            return
        self.stats.record(path)
        fault = self.faults.take(path)
        if self.latency:
            await asyncio.sleep(self.latency)
        if fault is not None and fault.hang:
            await asyncio.sleep(fault.hang)
        if fault is not None and fault.status is not None:
            await fault_response(fault.status, fault.retry_after)(scope, receive, send)
            return
        await self.app(scope, receive, send)
