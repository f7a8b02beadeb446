"""``opindex serve``: the MCP server over stdio (default) or streamable HTTP, with sync daemon."""

from __future__ import annotations

import argparse
import asyncio
import logging

from opindex.cli.config_option import add_config_argument
from opindex.cli.exit_codes import EXIT_OK
from opindex.cli.output import emit
from opindex.config import load_config
from opindex.errors import ConfigError

TRANSPORTS = ("stdio", "http")


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``opindex serve`` and its options."""
    parser = subparsers.add_parser(
        "serve",
        help="serve the search tools over MCP (stdio or HTTP), syncing in the background",
        description=(
            "Serve opindex's MCP tools. Over stdio (default) the server serves one tenant and "
            "writes nothing but protocol to stdout; over HTTP every request is mapped to a "
            "tenant by its OpenProject API key. Each served tenant's index is kept current "
            "by a background sync daemon (disable with --no-sync)."
        ),
    )
    add_config_argument(parser)
    parser.add_argument(
        "--transport",
        choices=TRANSPORTS,
        default="stdio",
        help="stdio (default) or http (streamable HTTP at /mcp)",
    )
    parser.add_argument(
        "--host", help="HTTP address to bind (default: [server] host, else 127.0.0.1)"
    )
    parser.add_argument(
        "--port",
        type=int,
        help="HTTP port (default: [server] port, else 8765; 0 picks a free one)",
    )
    parser.add_argument(
        "--tenant",
        metavar="NAME",
        help="stdio: the tenant to serve (required when several are configured)",
    )
    parser.add_argument(
        "--no-sync",
        action="store_true",
        help="no background sync (e.g. when cron runs `opindex sync`)",
    )


def run(args: argparse.Namespace) -> int:
    """Serve until the client disconnects (stdio) or SIGINT/SIGTERM (HTTP)."""
    from opindex.mcp import ServerOptions, build_server, serve_http, serve_stdio
    from opindex.process_memory import limit_malloc_arenas, tune_garbage_collector

    config = load_config(args.config)
    if args.port is not None and not 0 <= args.port <= 65535:
        raise ConfigError(f"--port must be between 0 and 65535, got {args.port}")
    if args.transport == "stdio" and (args.host is not None or args.port is not None):
        raise ConfigError("--host and --port apply to --transport http only")
    if args.transport == "http" and args.tenant is not None:
        raise ConfigError(
            "--tenant applies to stdio only; over HTTP each request's API key selects its tenant"
        )
    if not getattr(args, "verbose", False):
        # A server's operator wants to see its syncs: opindex's own INFO lines on stderr.
        logging.getLogger("opindex").setLevel(logging.INFO)
    options = ServerOptions(transport=args.transport, tenant=args.tenant, sync=not args.no_sync)
    limit_malloc_arenas()
    tune_garbage_collector()
    server = build_server(config, options)
    if args.transport == "stdio":
        asyncio.run(serve_stdio(server))
        return EXIT_OK
    host = args.host or config.server.host
    port = config.server.port if args.port is None else args.port
    webhooks = None
    if any(tenant.webhook is not None for tenant in config.tenants):
        from opindex.webhooks import WebhookReceiver

        webhooks = WebhookReceiver(config)
    asyncio.run(serve_http(server, host, port, on_ready=_announce, webhooks=webhooks))
    return EXIT_OK


def _announce(url: str) -> None:
    emit(f"opindex MCP server listening on {url}")  # a server outlives a reader that left
