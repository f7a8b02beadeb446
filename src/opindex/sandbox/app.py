"""The sandbox ASGI application: API v3 routes, control routes, error bodies, traffic rules."""

from __future__ import annotations

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import Response

from opindex.errors import OpenProjectError
from opindex.sandbox import (
    control,
    routes_attachments,
    routes_core,
    routes_embeddings,
    routes_meetings,
    routes_publications,
    routes_wiki,
    routes_work_packages,
)
from opindex.sandbox.app_state import SandboxState
from opindex.sandbox.auth import www_authenticate
from opindex.sandbox.corpus import Corpus
from opindex.sandbox.hal_core import error_body, hal_response
from opindex.sandbox.options import SandboxOptions
from opindex.sandbox.store import SandboxStore
from opindex.sandbox.traffic import TrafficMiddleware


async def _api_error(request: Request, exc: Exception) -> Response:
    """An ``OpenProjectError`` raised by a handler becomes OpenProject's error body."""
    if not isinstance(exc, OpenProjectError):  # pragma: no cover - registered for that type
        raise exc
    status = exc.status or 500
    name = exc.error_identifier or "InternalServerError"
    headers = {"WWW-Authenticate": www_authenticate(str(exc))} if status == 401 else None
    return hal_response(error_body(name, str(exc)), status=status, headers=headers)


async def _http_error(request: Request, exc: Exception) -> Response:
    """Routing failures (unknown path, wrong method) in the same error shape."""
    status = exc.status_code if isinstance(exc, HTTPException) else 500
    if status == 405:
        return hal_response(
            error_body("NotAllowed", "The HTTP method is not allowed for this resource."), 405
        )
    if status == 404:
        return hal_response(
            error_body("NotFound", "The requested resource could not be found."), 404
        )
    return hal_response(
        error_body("InternalServerError", "An internal error has occurred."), status
    )


async def _crash(request: Request, exc: Exception) -> Response:
    return hal_response(error_body("InternalServerError", "An internal error has occurred."), 500)


def create_app(corpus: Corpus, options: SandboxOptions) -> Starlette:
    """A Starlette app serving *corpus* the way *options* describe."""
    state = SandboxState(store=SandboxStore(corpus), options=options)
    routes = [
        *control.ROUTES,
        *routes_core.ROUTES,
        *routes_work_packages.ROUTES,
        *routes_wiki.routes(options),
        *routes_meetings.routes(options),
        *routes_publications.ROUTES,
        *routes_attachments.ROUTES,
        *routes_embeddings.ROUTES,
    ]
    app = Starlette(
        routes=routes,
        middleware=[
            Middleware(
                TrafficMiddleware,
                stats=state.stats,
                faults=state.faults,
                latency_ms=options.latency_ms,
            )
        ],
        exception_handlers={
            OpenProjectError: _api_error,
            HTTPException: _http_error,
            Exception: _crash,
        },
    )
    app.state.sandbox = state
    return app
