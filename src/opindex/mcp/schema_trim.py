"""Tool schemas trimmed for ``tools/list``: every client re-reads them in every conversation.

Pydantic writes a ``title`` per property, ``anyOf [..., null]`` with ``default: null`` for
every optional argument, and a description per output model. None of it tells a model
anything the property name and the tool description do not, and neither does the
largest id (2⁶³−1, still enforced when a call is validated): the trimmed schemas accept
and describe the same values (an omitted argument is the "none" the nulls stood for, and
structured content never carries nulls, see ``opindex.mcp.wire``).
"""

from __future__ import annotations

from typing import Any

from opindex.envelope import MAX_ID

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
