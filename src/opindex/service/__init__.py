"""The service façade: index-backed search with re-ranking, freshness routing, relaxation.

``Service`` is what the MCP server and the CLI call; see ``opindex.service.facade``.
"""

from opindex.service.facade import CALLER_TENANT, Service
from opindex.service.routing import Clock, Freshness, system_clock

__all__ = ["CALLER_TENANT", "Clock", "Freshness", "Service", "system_clock"]
