"""Tool arguments: published types, schemas trimmed for the model, a check before the SDK."""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping
from typing import Annotated, Any, Final, Literal

from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.mcpserver.tools import Tool
from mcp.types import CallToolResult, TextContent
from pydantic import Field, ValidationError

from opindex.envelope import MAX_ID, MAX_LIMIT, MAX_QUERY_LENGTH

ID_BOUNDS: Final[dict[str, Any]] = {"ge": 1, "le": MAX_ID, "strict": True}
"""Every id: 1 … 2⁶³−1, a JSON integer (no true/false, no "5", no 5.0)."""

QueryText = Annotated[
    str,
    Field(
        max_length=MAX_QUERY_LENGTH,
        description=(
            "Words or a question; typos, word order and accents are tolerated. Empty: the "
            "newest records."
        ),
    ),
]
MatchMode = Annotated[
    Literal["fuzzy", "exact"],
    Field(
        description=(
            "'fuzzy': tolerates typos and word order; 'exact': case-insensitive substring."
        ),
    ),
]
Limit = Annotated[
    int,
    Field(ge=1, le=MAX_LIMIT, strict=True, description=f"Most results to return (1-{MAX_LIMIT})."),
]
Id = Annotated[int, Field(**ID_BOUNDS)]
"""An id where a name is also accepted: bounded and strict like every id."""
ProjectRef = Annotated[
    Id | str | None,
    Field(description="Project id, identifier or name."),
]
StatusChoice = Annotated[
    str | Id | list[Id | str],
    Field(
        description=("'open', 'closed', 'all', a status name or a list of status ids or names."),
    ),
]
TypeRef = Annotated[Id | str | None, Field(description="Type id or name ('Bug').")]
AssigneeRef = Annotated[
    Id | str | None,
    Field(description="Assigned to this user: id, login, name or 'me'."),
]
AuthorRef = Annotated[
    Id | str | None,
    Field(description="Created by this user: id, login, name or 'me'."),
]
UpdatedAfter = Annotated[
    str | None,
    Field(
        description=("Updated at or after this ISO date or datetime (UTC by default)."),
    ),
]
UpdatedBefore = Annotated[
    str | None,
    Field(description="Updated before this ISO date or datetime."),
]
KindName = Literal[
    "work_package", "wiki_page", "meeting", "news", "document", "project", "version", "attachment"
]
KindsChoice = Annotated[
    list[KindName] | None,
    Field(
        description=("Only these kinds (default: all)."),
    ),
]
SortChoice = Annotated[
    Literal["relevance", "updated"],
    Field(description="'updated': most recently updated first."),
]
DetailChoice = Annotated[
    Literal["brief", "full"],
    Field(
        description=("'full': per-field scores, words matched, ids, people."),
    ),
]
RecordDetail = Annotated[
    Literal["brief", "full"],
    Field(description="'full' also reads relations and attachment names live."),
]
LookupKind = Annotated[
    Literal["projects", "users", "statuses", "types"],
    Field(description="What to list."),
]
LookupText = Annotated[
    str | None,
    Field(max_length=200, description="Optional: only entries whose name contains this text."),
]
SourceChoice = Annotated[
    Literal["auto", "index", "live"],
    Field(
        description=(
            "'auto': the index when fresh, else live; 'index': even if stale; 'live': ask "
            "OpenProject now."
        ),
    ),
]
CursorText = Annotated[
    str | None,
    Field(description="A nextCursor: next page."),
]
Fallback = Annotated[
    bool,
    Field(
        strict=True,
        description=("On zero hits, retry relaxed (prefixes, fewer words, synonyms) and say so."),
    ),
]
RecordId = Annotated[
    int, Field(**ID_BOUNDS, description="The record's numeric id, from a search result.")
]
WorkPackageId = Annotated[
    int, Field(**ID_BOUNDS, description="The work package's numeric id, from a search result.")
]
OptionalQuery = Annotated[
    str | None,
    Field(
        max_length=MAX_QUERY_LENGTH,
        description=(
            "Return only the comments matching this text, best first (typo tolerant); "
            "omit to list all in order."
        ),
    ),
]
SubjectFilter = Annotated[
    str | None,
    Field(
        max_length=MAX_QUERY_LENGTH,
        description=(
            "Subject contains this text (OpenProject's substring match, no typo tolerance)."
        ),
    ),
]
Offset = Annotated[
    int, Field(ge=1, le=MAX_ID, strict=True, description="Page number of the listing, from 1.")
]


_NULL = {"type": "null"}


def trim_schema(schema: dict[str, Any], *, descriptions: bool = True) -> dict[str, Any]:
    """*schema* without titles and null alternatives; without descriptions unless
    *descriptions* (kept for input schemas, where they guide the model)."""
    trimmed: dict[str, Any] = _trim(schema, descriptions)
    return trimmed


def _trim(node: Any, descriptions: bool) -> Any:
    if isinstance(node, list):
        return [_trim(item, descriptions) for item in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "title" and isinstance(value, str):
            continue
        if key == "description" and isinstance(value, str) and not descriptions:
            continue
        if key == "default" and value is None:
            continue
        if key == "maximum" and value == MAX_ID:  # 2^63 - 1 on every id: still validated
            continue
        if key in ("properties", "$defs") and isinstance(value, dict):
            out[key] = {name: _trim(item, descriptions) for name, item in value.items()}
        else:
            out[key] = _trim(value, descriptions)
    options = out.get("anyOf")
    if isinstance(options, list) and _NULL in options:
        kept = [option for option in options if option != _NULL]
        del out["anyOf"]
        if len(kept) == 1 and isinstance(kept[0], dict):
            out = {**kept[0], **out}
        elif kept:
            out["anyOf"] = kept
    return out


def outline_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """An output schema reduced to its top level: each property's JSON type only.

    The structured content is described by the tool's text and the README; what a
    client needs from the schema is that the result is an object with these members.
    """
    trimmed = trim_schema(schema, descriptions=False)
    properties = {name: _outline(prop) for name, prop in trimmed.get("properties", {}).items()}
    outline: dict[str, Any] = {"type": "object", "properties": properties}
    if "required" in trimmed:
        outline["required"] = trimmed["required"]
    return outline


def _outline(prop: dict[str, Any]) -> dict[str, Any]:
    if "$ref" in prop:
        return {"type": "object"}
    if prop.get("type") == "array":
        items = prop.get("items", {})
        inner = {"type": "object"} if "$ref" in items else {"type": items.get("type", "object")}
        return {"type": "array", "items": inner}
    if "type" in prop:
        return {key: prop[key] for key in ("type", "enum") if key in prop}
    return {}


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
    if not known:
        return f"unknown argument {name!r}; this tool takes no arguments (pass {{}})"
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
