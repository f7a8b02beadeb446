"""Running a tool call: the server's state, who calls, the work, and its result or error."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, cast

from mcp.server.mcpserver import Context
from mcp.types import CallToolResult, TextContent
from pydantic import BaseModel, ValidationError

from opindex.config import Config
from opindex.envelope import GlobalSearchResponse, SearchRequest, SearchResponse
from opindex.errors import InvalidArgumentError, OpindexError
from opindex.mcp.callers import Caller, Refusal, http_caller
from opindex.mcp.error_text import error_text
from opindex.mcp.rendering import render_global, render_search
from opindex.mcp.status_report import IndexStatusReport, status_report
from opindex.mcp.wire import Detail, Wire, global_search_out, search_out
from opindex.service import FilterNames, Kind, Service

if TYPE_CHECKING:  # the daemon (and the syncer) load only in a server that syncs
    from opindex.daemon import SyncDaemon


def app_state(ctx: Context) -> AppState:
    """What the server's lifespan provides to the call in *ctx*."""
    return cast(AppState, ctx.request_context.lifespan_context)


async def serve(
    ctx: Context, work: Callable[[AppState, Caller], Awaitable[CallToolResult]]
) -> CallToolResult:
    """Resolve the caller, run ``work``, turn library errors into error results."""
    state = app_state(ctx)
    caller: Caller | Refusal = state.caller(ctx.headers)
    if isinstance(caller, Refusal):
        return error_result(caller.message)
    try:
        return await work(state, caller)
    except OpindexError as error:
        return failure_result(error, caller)
    except ValidationError as error:  # arguments the service's request model refuses
        return error_result(
            f"Invalid arguments: {error.errors()[0]['msg']}. Change them and retry."
        )


async def serve_tenant(
    ctx: Context, work: Callable[[AppState, str], Awaitable[CallToolResult]]
) -> CallToolResult:
    """Like ``serve`` for reads that need a configured tenant (not a live-only caller)."""

    async def with_tenant(state: AppState, caller: Caller) -> CallToolResult:
        if caller.tenant is None:
            return error_result(LIVE_ONLY[0].upper() + LIVE_ONLY[1:] + ".")
        return await work(state, caller.tenant)

    return await serve(ctx, with_tenant)


async def guard(run: Callable[[], Awaitable[CallToolResult]]) -> CallToolResult:
    """Argument errors found while building a request become error results."""
    try:
        return await run()
    except OpindexError as error:
        return failure_result(error)


Transport = Literal["stdio", "http"]

LIVE_ONLY = (
    "this API key matches no tenant configured on the opindex server, so only the search "
    "tools (answered live with the key itself) are available to it; ask the user to have a "
    "tenant configured for the key to read records, list work packages or see index status"
)


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

    async def search_everything(
        self,
        caller: Caller,
        request: SearchRequest,
        kinds: Sequence[Kind],
        names: FilterNames | None = None,
    ) -> GlobalSearchResponse:
        """One ranking over *kinds* for a configured tenant (a live-only caller searches
        kind by kind with the per-kind tools)."""
        if caller.tenant is None:
            raise InvalidArgumentError(
                "searching every kind at once needs a configured tenant; use the per-kind "
                "search tools with this key"
            )
        return await self.service.search_everything(
            request, kinds, tenant=caller.tenant, names=names
        )

    async def search(
        self, caller: Caller, request: SearchRequest, names: FilterNames | None = None
    ) -> SearchResponse:
        """Ranked results: the tenant's index or live path, or live with the caller's own
        key. *names* (filters given by name) are resolved against what the account sees."""
        if caller.tenant is not None:
            return await self.service.search(request, tenant=caller.tenant, names=names)
        if caller.live_credential is None:
            raise InvalidArgumentError("a search needs a tenant or a credential")
        return await self.service.search_with_credential(
            request, caller.live_credential.reveal(), names=names
        )

    def index_status(self, tenant: str) -> IndexStatusReport:
        """Freshness and document counts of *tenant*, with its background sync interval."""
        intervals = {}
        if self.daemon is not None:
            intervals = {
                name: self.config.tenant(name).sync_interval_seconds for name in self.daemon.tenants
            }
        return status_report(self.service.status(tenant), intervals)


def text_result(text: str, structured: dict[str, object] | None = None) -> CallToolResult:
    """A successful result: ``text`` for the model, ``structured`` for the client."""
    return CallToolResult(
        content=[TextContent(type="text", text=text)], structured_content=structured
    )


def error_result(message: str) -> CallToolResult:
    """An error result (``isError``) whose text tells the model what to change."""
    return CallToolResult(content=[TextContent(type="text", text=message)], is_error=True)


def search_result(response: SearchResponse, detail: Detail = "brief") -> CallToolResult:
    """A search envelope as compact structured content, with its ranked text rendering."""
    text = render_search(response, brief=detail == "brief")
    return text_result(text, search_out(response, detail).wire())


def global_result(response: GlobalSearchResponse, detail: Detail = "brief") -> CallToolResult:
    """A search across kinds as compact structured content, with its text rendering."""
    text = render_global(response, brief=detail == "brief")
    return text_result(text, global_search_out(response, detail).wire())


def wire_result(model: Wire, text: str) -> CallToolResult:
    """A compact wire model (no nulls, camelCase) with the text that describes it."""
    return text_result(text, model.wire())


def model_result(model: BaseModel, text: str) -> CallToolResult:
    """Any result model (by alias, JSON mode) with the text that describes it."""
    return text_result(text, model.model_dump(mode="json", by_alias=True))


def failure_result(error: OpindexError, caller: Caller | Refusal | None = None) -> CallToolResult:
    """A library error turned into an error result, with the caller's credential scrubbed."""
    secrets = caller.secrets if isinstance(caller, Caller) else ()
    tenant = caller.tenant if isinstance(caller, Caller) else None
    return error_result(error_text(error, secrets=secrets, tenant=tenant))
