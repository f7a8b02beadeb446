"""Running the MCP server: stdio (protocol alone on stdout) or streamable HTTP (uvicorn).

ARCHITECTURE invariant 10: over stdio nothing but protocol messages reaches stdout.

Over HTTP the server binds loopback unless told otherwise; on a loopback address the SDK
also turns on DNS-rebinding protection (Host and Origin headers must be local). Only
callers whose key selects a configured tenant open sessions freely; the others share a
small quota (:mod:`opindex.mcp.session_admission`). Request bodies are read up to a
limit and no further, chunked or not (:mod:`opindex.mcp.jsonrpc_guard`, the webhooks).
SIGINT/SIGTERM stop the server cleanly: the lifespan ends, the sync daemon cancels any
running sync (which leaves the last good index serving) and the process exits 0.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import logging
import signal
import socket
from collections.abc import Callable, Generator, Mapping
from typing import TYPE_CHECKING, Any, cast

import uvicorn
from mcp.server.mcpserver import MCPServer
from mcp.server.stdio import stdio_server

from opindex.errors import ConfigError
from opindex.mcp.callers import Caller, http_caller
from opindex.mcp.jsonrpc_guard import CheckedStdin, JsonRpcGuard
from opindex.mcp.session_admission import SessionAdmission
from opindex.mcp.tool_calls import AppState

if TYPE_CHECKING:
    from opindex.mcp.server import OpindexServer

if TYPE_CHECKING:  # built by the caller only when a tenant has webhooks (it loads the syncer)
    from opindex.webhooks import WebhookReceiver

logger = logging.getLogger(__name__)

MCP_PATH = "/mcp"
GRACEFUL_SHUTDOWN_SECONDS = 5


async def serve_stdio(server: MCPServer[AppState]) -> None:
    """Serve one client over stdin/stdout until it closes stdin.

    While serving, the SDK points file descriptor 1 at stderr for everything but the
    protocol, so stray output cannot corrupt the stream. Lines that are not valid
    JSON-RPC are answered with a JSON-RPC error and the session goes on
    (:mod:`opindex.mcp.jsonrpc_guard`).
    """
    stdin = CheckedStdin()
    try:
        async with stdio_server(stdin=cast(Any, stdin)) as (read_stream, write_stream):
            stdin.attach(write_stream.send)
            # What MCPServer.run_stdio_async does, with the checked stdin.
            lowlevel = server._lowlevel_server
            options = lowlevel.create_initialization_options()
            await lowlevel.run(read_stream, write_stream, options)
    finally:
        stdin.restore()


def bind_socket(host: str, port: int) -> socket.socket:
    """A listening TCP socket on ``host``:``port`` (port 0 picks a free one)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(128)
    except OSError as exc:
        sock.close()
        raise ConfigError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from exc
    sock.setblocking(False)
    return sock


def is_loopback(host: str) -> bool:
    """True for ``localhost`` and loopback addresses (127.0.0.0/8, ::1)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def endpoint_url(host: str, port: int) -> str:
    """``http://HOST:PORT/mcp`` (IPv6 hosts in brackets)."""
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}{MCP_PATH}"


async def serve_http(
    server: OpindexServer,
    host: str,
    port: int,
    *,
    on_ready: Callable[[str], None] | None = None,
    webhooks: WebhookReceiver | None = None,
) -> None:
    """Serve streamable HTTP on ``host``:``port`` until SIGINT/SIGTERM.

    ``on_ready`` gets the endpoint URL once the server accepts connections (after the
    lifespan started). ``webhooks`` adds the tenants' webhook endpoints and runs their
    re-fetch workers while serving. Raises ConfigError if the address cannot be bound.
    """
    if not is_loopback(host):
        logger.warning(
            "serving MCP on %s over plain HTTP: API keys travel in request headers, so put "
            "the server behind TLS (a reverse proxy) or bind 127.0.0.1",
            host,
        )
    sock = bind_socket(host, port)
    url = endpoint_url(host, sock.getsockname()[1])
    mcp_app = server.streamable_http_app(streamable_http_path=MCP_PATH, host=host)
    if webhooks is not None:
        mcp_app.router.routes.extend(webhooks.routes())
    config = server.config

    def keyed(headers: Mapping[str, str]) -> bool:
        caller = http_caller(config, headers)
        return isinstance(caller, Caller) and caller.tenant is not None

    manager = server.session_manager
    app = SessionAdmission(
        JsonRpcGuard(mcp_app, MCP_PATH),
        MCP_PATH,
        keyed=keyed,
        # The SDK offers no public list of its open sessions (DECISIONS D191).
        open_sessions=lambda: manager._server_instances.keys(),
    )
    uvicorn_config = uvicorn.Config(
        app,
        log_level="warning",
        access_log=False,
        timeout_graceful_shutdown=GRACEFUL_SHUTDOWN_SECONDS,
    )
    uvicorn_server = _StoppableServer(uvicorn_config, lambda: on_ready(url) if on_ready else None)
    try:
        async with webhooks or contextlib.nullcontext():
            await uvicorn_server.serve(sockets=[sock])
    finally:
        sock.close()
    if uvicorn_server.startup_failed:
        raise ConfigError("the MCP server failed to start; see the messages above")


class _StoppableServer(uvicorn.Server):
    """uvicorn that reports readiness and, on SIGINT/SIGTERM, stops and returns normally
    (uvicorn's own handling would re-raise the signal once shut down)."""

    def __init__(self, config: uvicorn.Config, on_started: Callable[[], None]) -> None:
        super().__init__(config)
        self._on_started = on_started
        self.startup_failed = False

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets=sockets)
        if self.started:
            self._on_started()
        else:
            self.startup_failed = True

    @contextlib.contextmanager
    def capture_signals(self) -> Generator[None, None, None]:
        loop = asyncio.get_running_loop()
        handled = (signal.SIGINT, signal.SIGTERM)
        try:
            for sig in handled:
                loop.add_signal_handler(sig, self._stop)
        except (NotImplementedError, RuntimeError):  # not the main thread
            yield
            return
        try:
            yield
        finally:
            for sig in handled:
                loop.remove_signal_handler(sig)

    def _stop(self) -> None:
        if self.should_exit:
            self.force_exit = True
        self.should_exit = True
