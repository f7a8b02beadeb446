"""What every tool call reads from the server's lifespan: configuration, service, caller rules."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from opindex.config import Config
from opindex.daemon import SyncDaemon
from opindex.mcp.callers import Caller, Refusal, http_caller
from opindex.service import Service

Transport = Literal["stdio", "http"]


@dataclass(frozen=True, slots=True)
class AppState:
    """The lifespan context of one server process.

    ``stdio_tenant`` is the tenant a stdio server serves (None over HTTP, where every
    request names its tenant by its credential). ``daemon`` is None when the server was
    started without background sync.
    """

    config: Config
    service: Service
    transport: Transport
    stdio_tenant: str | None = None
    daemon: SyncDaemon | None = None

    def caller(self, headers: Mapping[str, str] | None) -> Caller | Refusal:
        """The identity a tool call is served as (see :mod:`opindex.mcp.callers`)."""
        if self.transport == "stdio":
            return Caller(self.stdio_tenant)
        return http_caller(self.config, headers)

    def visible_tenants(self, caller: Caller) -> tuple[str, ...]:
        """The tenants whose status this caller may read: its own, and only its own."""
        return () if caller.tenant is None else (caller.tenant,)
