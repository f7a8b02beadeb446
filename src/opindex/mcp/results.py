"""Tool results in the SDK's shape: structured content plus its text rendering, or an error."""

from __future__ import annotations

from mcp.types import CallToolResult, TextContent
from pydantic import BaseModel

from opindex.envelope import SearchResponse
from opindex.errors import OpindexError
from opindex.mcp.callers import Caller, Refusal
from opindex.mcp.error_text import error_text
from opindex.mcp.rendering import render_search
from opindex.mcp.wire import Detail, Wire, search_out


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
