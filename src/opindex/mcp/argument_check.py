"""Tool arguments checked before any tool runs, with a message saying what to change.

The SDK would reject invalid arguments too, with pydantic's raw report and silently
ignoring unknown names. This middleware answers first: every problem on one line naming
the argument, the allowed values and what was sent, plus a hint for a misspelt name.
Nothing reaches OpenProject for a rejected call.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping
from typing import Any

from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.mcpserver.tools import Tool
from mcp.types import CallToolResult, TextContent
from pydantic import ValidationError

SHOWN_INPUT = 60
"""Longest rendering of a rejected value quoted back."""


class ArgumentCheck:
    """Server middleware validating ``tools/call`` arguments of the given tools."""

    def __init__(self, tools: Iterable[Tool]) -> None:
        self._tools = {tool.name: tool for tool in tools}

    async def __call__(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        if ctx.method == "tools/call" and isinstance(ctx.params, Mapping):
            tool = self._tools.get(str(ctx.params.get("name")))
            if tool is not None:
                problem = argument_problem(tool, ctx.params.get("arguments"))
                if problem is not None:
                    return CallToolResult(
                        content=[TextContent(type="text", text=problem)], is_error=True
                    )
        return await call_next(ctx)


def argument_problem(tool: Tool, arguments: object) -> str | None:
    """Why ``arguments`` cannot be passed to ``tool`` (None if they can)."""
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, Mapping):
        return _message(tool.name, ["the arguments must be a JSON object"])
    known = _argument_names(tool)
    problems = [_unknown(name, known) for name in arguments if name not in known]
    try:
        tool.fn_metadata.validate_arguments(dict(arguments))
    except ValidationError as error:
        problems.extend(_describe(detail) for detail in error.errors())
    return _message(tool.name, problems) if problems else None


def _argument_names(tool: Tool) -> list[str]:
    fields = tool.fn_metadata.arg_model.model_fields
    return [field.alias or name for name, field in fields.items()]


def _unknown(name: str, known: list[str]) -> str:
    close = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    return f"unknown argument {name!r}{hint}; the arguments are {', '.join(known)}"


def _describe(detail: Mapping[str, Any]) -> str:
    location = ".".join(str(part) for part in detail.get("loc", ())) or "arguments"
    message = str(detail.get("msg", "is invalid"))
    if detail.get("type") == "missing":
        return f"{location}: required, but missing"
    shown = repr(detail.get("input"))
    if len(shown) > SHOWN_INPUT:
        shown = shown[: SHOWN_INPUT - 1] + "…"
    return f"{location}: {message} (got {shown})"


def _message(tool_name: str, problems: list[str]) -> str:
    listed = "; ".join(problems)
    return (
        f"Invalid arguments for {tool_name}: {listed}. Nothing was sent to OpenProject; "
        "correct these arguments and call the tool again."
    )
