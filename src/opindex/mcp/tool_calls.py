"""Running a tool call: resolve the caller, do the work, turn library errors into results."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import cast

from mcp.server.mcpserver import Context
from mcp.types import CallToolResult
from pydantic import ValidationError

from opindex.errors import OpindexError
from opindex.mcp.app_state import AppState
from opindex.mcp.callers import Caller, Refusal
from opindex.mcp.handlers import LIVE_ONLY
from opindex.mcp.results import error_result, failure_result


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
