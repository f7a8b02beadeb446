"""The MCP server: the search tools as thin adapters over the service; the only user of ``mcp``.

The names below load their module on first use, so the command line's ``search`` can render
its results with :func:`relaxation_notice` without importing the MCP SDK.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from opindex.lazy_names import lazy_getattr

if TYPE_CHECKING:
    from opindex.mcp.rendering import (
        describe_source,
        meta_lines,
        plural,
        relaxation_notice,
        render_global,
        result_heading,
        result_lines,
    )
    from opindex.mcp.server import ServerOptions, build_server
    from opindex.mcp.serving import serve_http, serve_stdio

_HOMES = {
    "describe_source": ".rendering",
    "meta_lines": ".rendering",
    "plural": ".rendering",
    "relaxation_notice": ".rendering",
    "render_global": ".rendering",
    "result_heading": ".rendering",
    "result_lines": ".rendering",
    "ServerOptions": ".server",
    "build_server": ".server",
    "serve_http": ".serving",
    "serve_stdio": ".serving",
}

__all__ = [
    "ServerOptions",
    "build_server",
    "describe_source",
    "meta_lines",
    "plural",
    "relaxation_notice",
    "render_global",
    "result_heading",
    "result_lines",
    "serve_http",
    "serve_stdio",
]


__getattr__ = lazy_getattr(__name__, _HOMES, globals())
