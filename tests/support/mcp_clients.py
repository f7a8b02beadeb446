"""Real ``mcp`` SDK clients for tests (in-process and over streamable HTTP) and their results."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from datetime import datetime
from functools import partial
from typing import Any

import httpx2
from anyio.from_thread import BlockingPortal, start_blocking_portal
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.types import CallToolResult

from opindex.config import Config
from opindex.mcp.server import ServerOptions, build_server
from opindex.service import Service


def result_text(result: CallToolResult) -> str:
    """Every text block of a result, joined."""
    return "\n".join(getattr(block, "text", "") for block in result.content)


def structured(result: CallToolResult) -> dict[str, Any]:
    """The structured content of a successful result (fails the test otherwise)."""
    assert not result.is_error, result_text(result)
    assert result.structured_content is not None
    content: dict[str, Any] = result.structured_content
    return content


def error_text(result: CallToolResult) -> str:
    """The text of an error result (fails the test if it is not one)."""
    assert result.is_error, result.structured_content
    return result_text(result)


def result_ids(result: CallToolResult) -> list[int]:
    """Ids of the records a search or listing result returned, in order."""
    return [int(item["id"]) for item in structured(result)["results"]]


def initialize_request(client_name: str) -> dict[str, Any]:
    """A raw JSON-RPC ``initialize`` request (id 1), for tests that speak the protocol by hand."""
    return {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": client_name, "version": "0"},
        },
    }


def bearer(key: str) -> dict[str, str]:
    """The header that authenticates a caller with ``key``."""
    return {"Authorization": f"Bearer {key}"}


@asynccontextmanager
async def http_client(url: str, headers: dict[str, str] | None = None) -> AsyncIterator[Client]:
    """An MCP client over streamable HTTP sending ``headers`` with every request."""
    async with (
        httpx2.AsyncClient(headers=headers or {}, timeout=60) as http,
        Client(streamable_http_client(url, http_client=http)) as client,
    ):
        yield client


@contextmanager
def in_process_client(
    config: Config, tenant: str | None = None, *, clock: Callable[[], datetime] | None = None
) -> Iterator[PortalClient]:
    """An in-process MCP client on its own event loop thread, so synchronous tests (and
    hypothesis) can call tools one by one. No background sync. *clock* is the service's
    clock (it decides index freshness)."""
    server = build_server(
        config,
        ServerOptions(transport="stdio", tenant=tenant, sync=False),
        service_factory=partial(Service.from_config, clock=clock),
    )
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
