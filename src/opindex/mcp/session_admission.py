"""Who may open an MCP session over HTTP: keyed callers always, the others a few at a time.

The SDK keeps every session (its transport, its task, its streams) until the client ends
it or it idles for 30 minutes, up to one limit shared by all callers, and it serves
``initialize`` and ``tools/list`` without any key. Ten thousand anonymous ``initialize``
requests therefore filled that limit and locked every keyed caller out (``503 Too many
open sessions``) for half an hour. Here a request opening a session (a POST to the MCP
endpoint without ``Mcp-Session-Id``) is admitted at once when its API key selects a
configured tenant; any other opener (no key, a key of no tenant, a key allowed on the
live path only) shares a small quota of sessions, so it still hears what to change, and
past the quota it gets a 503 naming the fix. Keyed callers never share that quota.
"""

from __future__ import annotations

from collections.abc import Callable, Container, Mapping
from typing import Final

import mcp_types as types
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from opindex.mcp.jsonrpc_guard import respond_error

ANONYMOUS_SESSIONS: Final = 16
"""Sessions open at once for openers whose key selects no configured tenant."""
SESSION_HEADER: Final = b"mcp-session-id"

KeyCheck = Callable[[Mapping[str, str]], bool]
OpenSessions = Callable[[], Container[str]]

QUOTA_FULL = (
    "Too many open sessions without the API key of a configured tenant: send the header "
    "'Authorization: Bearer <key>' (or 'X-OpenProject-Api-Key: <key>') with every request, "
    "initialize included, or close idle sessions (HTTP DELETE)"
)


class SessionAdmission:
    """ASGI middleware before the MCP endpoint *path*: admits openers of new sessions.

    ``keyed(headers)`` tells whether a request's key selects a configured tenant;
    ``open_sessions()`` the ids of the sessions the SDK still holds (an anonymous session
    counts until it ends, however it ends: DELETE, idle timeout, shutdown).
    """

    def __init__(
        self,
        app: ASGIApp,
        path: str,
        *,
        keyed: KeyCheck,
        open_sessions: OpenSessions,
        quota: int = ANONYMOUS_SESSIONS,
    ) -> None:
        self._app = app
        self._path = path.rstrip("/")
        self._keyed = keyed
        self._open_sessions = open_sessions
        self._quota = quota
        self._anonymous: set[str] = set()
        self._opening = 0

    @property
    def anonymous_sessions(self) -> int:
        """Anonymous sessions open or being opened now."""
        still_open = self._open_sessions()
        self._anonymous = {session for session in self._anonymous if session in still_open}
        return len(self._anonymous) + self._opening

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if not self._opens_session(scope):
            await self._app(scope, receive, send)
            return
        headers = {
            name.decode("latin-1"): value.decode("latin-1") for name, value in scope["headers"]
        }
        if self._keyed(headers):
            await self._app(scope, receive, send)
            return
        if self.anonymous_sessions >= self._quota:
            error = types.JSONRPCError(
                jsonrpc="2.0",
                id=None,
                error=types.ErrorData(code=types.INTERNAL_ERROR, message=QUOTA_FULL),
            )
            await respond_error(send, 503, error)
            return
        self._opening += 1
        opened: list[str] = []

        async def noting_send(message: Message) -> None:
            if message["type"] == "http.response.start":
                for name, value in message.get("headers", ()):
                    if name.lower() == SESSION_HEADER:
                        opened.append(value.decode("latin-1"))
            await send(message)

        try:
            await self._app(scope, receive, noting_send)
        finally:
            self._opening -= 1
            self._anonymous.update(opened)

    def _opens_session(self, scope: Scope) -> bool:
        if scope["type"] != "http" or scope.get("method") != "POST":
            return False
        if scope.get("path", "").rstrip("/") != self._path:
            return False
        return all(name.lower() != SESSION_HEADER for name, _ in scope["headers"])
