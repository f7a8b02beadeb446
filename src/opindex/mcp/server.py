"""The MCP server object: tools, argument checks, and a lifespan owning service and daemon."""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from mcp.server.mcpserver import MCPServer

from opindex import __version__
from opindex.config import Config
from opindex.mcp.arguments import ArgumentCheck
from opindex.mcp.callers import stdio_tenant
from opindex.mcp.tool_calls import AppState, Transport
from opindex.mcp.tools import build_tools
from opindex.service import Service

if TYPE_CHECKING:  # imported by the lifespan of a server that syncs (--no-sync: never)
    from opindex.daemon import SyncDaemon, SyncListener

logger = logging.getLogger(__name__)

SERVER_NAME = "opindex"
SEARCH_THREADS = max(2, os.cpu_count() or 2)
"""Worker threads for index searches (CPU-bound): more would not answer sooner, only hold
more candidate windows in memory at once (asyncio's default is CPUs + 4)."""
INSTRUCTIONS = (
    "Search an OpenProject instance: work packages (with descriptions and comments), "
    "meetings (agenda items, outcomes, participants) and wiki pages (full text). The search "
    "tools tolerate typos, word order, partial words and missing accents, and rank results "
    "by relevance; phrase queries naturally. Read a result in full with the get tools. Each "
    "answer says whether it came from opindex's index or live from OpenProject."
)

ServiceFactory = Callable[[Config], Service]


class OpindexServer(MCPServer[AppState]):
    """The MCP server, knowing the configuration it serves (HTTP admits sessions by key)."""

    def __init__(self, config: Config, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.config = config


@dataclass(frozen=True, slots=True)
class ServerOptions:
    """How to serve: transport, the stdio tenant, whether to run the sync daemon.

    ``tenant``: over stdio, the tenant to serve (needed when several are configured).
    ``sync``: run the background sync daemon for the served tenants.
    ``on_sync``: called after every daemon run (logging, tests).
    """

    transport: Transport = "stdio"
    tenant: str | None = None
    sync: bool = True
    on_sync: SyncListener | None = None


def served_tenants(config: Config, options: ServerOptions) -> tuple[str | None, tuple[str, ...]]:
    """(the stdio tenant or None, the tenants the daemon keeps in sync)."""
    if options.transport == "stdio":
        name = stdio_tenant(config, options.tenant)
        return name, (name,)
    return None, config.tenant_names


def build_server(
    config: Config,
    options: ServerOptions | None = None,
    *,
    service_factory: ServiceFactory = Service.from_config,
) -> OpindexServer:
    """An MCP server for ``config``; nothing starts until it runs (the lifespan).

    Raises ConfigError at once if the stdio tenant cannot be chosen.
    """
    options = options or ServerOptions()
    tenant, synced = served_tenants(config, options)

    @asynccontextmanager
    async def lifespan(_: MCPServer[AppState]) -> AsyncIterator[AppState]:
        asyncio.get_running_loop().set_default_executor(
            ThreadPoolExecutor(max_workers=SEARCH_THREADS, thread_name_prefix="opindex-search")
        )
        service = service_factory(config)
        daemon: SyncDaemon | None = None
        if options.sync:
            from opindex.daemon import SyncDaemon

            daemon = SyncDaemon(config, synced, on_sync=options.on_sync)
            service.on_damage(daemon.request_sync)
        try:
            if daemon is not None:
                await daemon.start()
            logger.info("serving %s over %s", ", ".join(synced) or "no tenant", options.transport)
            yield AppState(config, service, options.transport, tenant, daemon)
        finally:
            if daemon is not None:
                await daemon.stop()
            await service.aclose()

    tools = build_tools()
    return OpindexServer(
        config,
        SERVER_NAME,
        instructions=INSTRUCTIONS,
        version=__version__,
        tools=tools,
        lifespan=lifespan,
        middleware=[ArgumentCheck(tools)],
        log_level="WARNING",
    )
