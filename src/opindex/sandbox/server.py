"""Running the sandbox: bind a socket, serve with uvicorn, stop cleanly on SIGINT/SIGTERM."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import signal
import socket
from collections.abc import Callable, Generator

import uvicorn

from opindex.errors import ConfigError
from opindex.sandbox.app import create_app
from opindex.sandbox.corpus_check import load_corpus_file
from opindex.sandbox.options import SandboxOptions

# How long open requests (e.g. a hanging fault) may delay a shutdown.
GRACEFUL_SHUTDOWN_SECONDS = 2


class _SandboxServer(uvicorn.Server):
    """A uvicorn server that reports when it accepts connections and, on SIGINT/SIGTERM,
    stops and returns (uvicorn's own handling would re-raise the signal afterwards)."""

    def __init__(self, config: uvicorn.Config, on_started: Callable[[], None]) -> None:
        super().__init__(config)
        self._on_started = on_started

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets=sockets)
        if self.started:
            self._on_started()

    @contextlib.contextmanager
    def capture_signals(self) -> Generator[None, None, None]:
        loop = asyncio.get_running_loop()
        handled = (signal.SIGINT, signal.SIGTERM)
        for sig in handled:
            loop.add_signal_handler(sig, self._stop)
        try:
            yield
        finally:
            for sig in handled:
                loop.remove_signal_handler(sig)

    def _stop(self) -> None:
        if self.should_exit:
            self.force_exit = True
        self.should_exit = True


def bind_socket(host: str, port: int) -> socket.socket:
    """A listening TCP socket on *host*:*port* (port 0 picks a free one)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        # Accepted connections inherit this on Linux: without it, small responses wait for
        # the peer's delayed ACK (~40 ms per sequential request), which no real server does.
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.bind((host, port))
        sock.listen(128)
    except OSError as exc:
        sock.close()
        raise ConfigError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from exc
    sock.setblocking(False)
    return sock


def base_url(host: str, port: int) -> str:
    """``http://HOST:PORT`` (IPv6 hosts in brackets)."""
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}"


async def serve(options: SandboxOptions, on_ready: Callable[[str], None]) -> None:
    """Serve until SIGINT/SIGTERM; call *on_ready* with the base URL once accepting.

    Raises ``CorpusError`` if the corpus is refused, ``ConfigError`` if the port is taken.
    """
    corpus = load_corpus_file(options.corpus_path)
    app = create_app(corpus, options)
    del corpus
    # The corpus lives as long as the server: keep the collector from rescanning it.
    gc.freeze()
    sock = bind_socket(options.host, options.port)
    config = uvicorn.Config(
        app,
        log_level="warning",
        access_log=False,
        lifespan="off",
        timeout_graceful_shutdown=GRACEFUL_SHUTDOWN_SECONDS,
    )
    url = base_url(options.host, sock.getsockname()[1])
    server = _SandboxServer(config, lambda: on_ready(url))
    try:
        await server.serve(sockets=[sock])
    finally:
        sock.close()
