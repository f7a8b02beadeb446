"""MCP clients for the reliability tests: in-process (for fuzzing) and a real HTTP server."""

from __future__ import annotations

import select
import signal
import subprocess
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import httpx2
from anyio.from_thread import BlockingPortal, start_blocking_portal
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.types import CallToolResult
from tests.reliability.conftest import opindex_argv, subprocess_env

from opindex.config import Config
from opindex.mcp.server import ServerOptions, build_server

SERVE_READY = "opindex MCP server listening on "


def result_text(result: CallToolResult) -> str:
    """Every text block of a result, joined."""
    return "\n".join(getattr(block, "text", "") for block in result.content)


def structured(result: CallToolResult) -> dict[str, Any]:
    """The structured content of a successful result (fails the test otherwise)."""
    assert not result.is_error, result_text(result)
    assert result.structured_content is not None
    content: dict[str, Any] = result.structured_content
    return content


def error_message(result: CallToolResult) -> str:
    """The text of an error result (fails the test if it is not one)."""
    assert result.is_error, result.structured_content
    return result_text(result)


def result_ids(result: CallToolResult) -> list[int]:
    """Ids of a search or listing result, in order."""
    return [int(item["id"]) for item in structured(result)["results"]]


@contextmanager
def in_process_client(config: Config, tenant: str | None = None) -> Iterator[PortalClient]:
    """An in-process MCP client on its own event loop thread, so synchronous tests (and
    hypothesis) can call tools one by one. No background sync."""
    server = build_server(config, ServerOptions(transport="stdio", tenant=tenant, sync=False))
    with (
        start_blocking_portal() as portal,
        portal.wrap_async_context_manager(Client(server)) as client,
    ):
        yield PortalClient(portal, client)


class PortalClient:
    """Blocking calls to an MCP client living on a portal's event loop."""

    def __init__(self, portal: BlockingPortal, client: Client) -> None:
        self._portal = portal
        self._client = client

    def call(self, name: str, arguments: dict[str, Any] | None = None) -> CallToolResult:
        async def call() -> CallToolResult:
            return await self._client.call_tool(name, arguments)

        return self._portal.call(call)

    def tool_schemas(self) -> dict[str, dict[str, Any]]:
        async def listing() -> dict[str, dict[str, Any]]:
            tools = await self._client.list_tools()
            return {tool.name: tool.input_schema for tool in tools.tools}

        return self._portal.call(listing)


@asynccontextmanager
async def http_client(url: str, headers: dict[str, str] | None = None) -> AsyncIterator[Client]:
    """An MCP client over streamable HTTP sending ``headers`` with every request."""
    async with (
        httpx2.AsyncClient(headers=headers or {}, timeout=60) as http,
        Client(streamable_http_client(url, http_client=http)) as client,
    ):
        yield client


def bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


@contextmanager
def http_server(
    config_path: Path,
    *extra: str,
    stderr_path: Path | None = None,
    verbose: bool = False,
    exit_codes: list[int] | None = None,
) -> Iterator[str]:
    """``opindex serve --transport http --port 0`` in a subprocess; yields the MCP URL.

    Its stderr goes to ``stderr_path`` (default: beside the config file); ``verbose``
    runs it with ``-v`` (every logger at DEBUG). On exit it gets SIGTERM and 30 s to
    stop (then SIGKILL); its exit code is appended to ``exit_codes``."""
    argv = opindex_argv(
        *(["-v"] if verbose else []),
        "serve",
        "--config",
        str(config_path),
        "--transport",
        "http",
        "--port",
        "0",
        *extra,
    )
    stderr_path = stderr_path or config_path.parent / "serve-stderr.txt"
    with stderr_path.open("w", encoding="utf-8") as stderr:
        process = subprocess.Popen(
            argv, stdout=subprocess.PIPE, stderr=stderr, text=True, env=subprocess_env()
        )
    try:
        assert process.stdout is not None
        ready, _, _ = select.select([process.stdout], [], [], 90)
        line = process.stdout.readline().strip() if ready else ""
        if not line.startswith(SERVE_READY):
            process.kill()
            process.wait(timeout=10)
            detail = stderr_path.read_text(encoding="utf-8")
            raise AssertionError(f"serve did not start: {line!r}; stderr: {detail}")
        yield line.removeprefix(SERVE_READY)
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=10)
        if exit_codes is not None:
            exit_codes.append(process.returncode)
        if process.stdout is not None:
            process.stdout.close()
