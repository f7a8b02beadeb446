"""An in-memory OpenProject stand-in for httpx.MockTransport: routes, recorded requests."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import httpx

from opindex.openproject import OpenProjectClient, RetryPolicy

ERROR_URN = "urn:openproject-org:api:v3:errors:"
BASE_URL = "http://op.test"
API_KEY = "s3cr3t-Key-0123456789"

Handler = Callable[[httpx.Request], httpx.Response]
Route = httpx.Response | Handler | Mapping[str, Any]

ME = {"_type": "User", "id": 7, "login": "sync-bot", "name": "Sync Bot"}


def error_body(name: str, message: str = "Something went wrong.") -> dict[str, str]:
    """An OpenProject error body with the given identifier suffix."""
    return {"_type": "Error", "errorIdentifier": ERROR_URN + name, "message": message}


def collection(
    elements: Sequence[Mapping[str, Any]],
    *,
    total: int | None = None,
    page_size: int | None = None,
    offset: int | None = None,
    has_next: bool = False,
) -> dict[str, Any]:
    """A HAL collection; paginated when *page_size* is given."""
    body: dict[str, Any] = {
        "_type": "Collection",
        "total": len(elements) if total is None else total,
        "count": len(elements),
        "_embedded": {"elements": list(elements)},
        "_links": {"self": {"href": "/api/v3/x"}},
    }
    if page_size is not None:
        body["pageSize"] = page_size
        body["offset"] = offset or 1
        body["_links"]["jumpTo"] = {"href": "/api/v3/x?offset=%7Boffset%7D", "templated": True}
        body["_links"]["changeSize"] = {"href": "/api/v3/x?pageSize=%7Bsize%7D", "templated": True}
        if has_next:
            body["_links"]["nextByOffset"] = {"href": "/api/v3/x?offset=next"}
    return body


def paginate(
    records: Sequence[Mapping[str, Any]], request: httpx.Request, *, max_page_size: int = 1000
) -> dict[str, Any]:
    """Serve one page of *records* the way OpenProject does (1-based offset, clamping)."""
    offset = int(request.url.params.get("offset", "1"))
    requested = int(request.url.params.get("pageSize", "20"))
    size = max_page_size if requested == -1 else min(requested, max_page_size)
    start = (offset - 1) * size
    page = records[start : start + size]
    return collection(
        page,
        total=len(records),
        page_size=size,
        offset=offset,
        has_next=start + size < len(records),
    )


class FakeOpenProject:
    """Routes by URL path; every request is recorded in ``requests``.

    A route is a fixed ``httpx.Response``, a JSON object (served with 200), or a handler.
    A list of routes for one path is served in order, the last one repeating.
    ``/api/v3/users/me`` answers ``me`` unless routed otherwise.
    """

    def __init__(self, me: Mapping[str, Any] | None = None) -> None:
        self.routes: dict[str, list[Route]] = {"/api/v3/users/me": [dict(me or ME)]}
        self.requests: list[httpx.Request] = []

    def route(self, path: str, *answers: Route) -> FakeOpenProject:
        self.routes[path] = list(answers)
        return self

    def paths(self) -> list[str]:
        return [request.url.path for request in self.requests]

    def requests_to(self, path: str) -> list[httpx.Request]:
        return [request for request in self.requests if request.url.path == path]

    def handle(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        answers = self.routes.get(request.url.path)
        if not answers:
            return httpx.Response(404, json=error_body("NotFound", "The resource was not found."))
        answer = answers.pop(0) if len(answers) > 1 else answers[0]
        if isinstance(answer, httpx.Response):
            return answer
        if callable(answer):
            return answer(request)
        return httpx.Response(200, json=dict(answer))

    def transport(self) -> httpx.MockTransport:
        return httpx.MockTransport(self.handle)


class RecordingSleep:
    """An injectable sleep that records the requested delays instead of waiting."""

    def __init__(self) -> None:
        self.delays: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)


def make_client(
    fake: FakeOpenProject,
    *,
    retry: RetryPolicy | None = None,
    sleep: RecordingSleep | None = None,
    **options: Any,
) -> OpenProjectClient:
    """A client wired to *fake*; sleeping is recorded, never real."""
    return OpenProjectClient(
        BASE_URL,
        API_KEY,
        transport=fake.transport(),
        retry=retry,
        sleep=sleep or RecordingSleep(),
        **options,
    )
