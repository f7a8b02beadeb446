"""Control endpoints under /_sandbox: request stats, fault injection, live corpus mutation."""

from __future__ import annotations

import json
from typing import Any, cast

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from opindex.errors import CorpusError, NotFoundError
from opindex.sandbox.app_state import sandbox_of
from opindex.sandbox.corpus import MUTABLE_KINDS, MutableKind
from opindex.sandbox.traffic import Fault

FAULT_KEYS = {"path_prefix", "status", "count", "retry_after", "hang"}


def _bad(message: str, status: int = 400) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


async def _json_object(request: Request) -> dict[str, Any] | JSONResponse:
    try:
        data = json.loads(await request.body())
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        return _bad(f"the body is not valid JSON: {exc}")
    if not isinstance(data, dict):
        return _bad("the body must be a JSON object")
    return data


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


async def get_stats(request: Request) -> Response:
    return JSONResponse(sandbox_of(request).stats.as_json())


async def reset_stats(request: Request) -> Response:
    sandbox_of(request).stats.reset()
    return JSONResponse({"ok": True})


def parse_fault(data: dict[str, Any]) -> Fault | str:
    """A fault from its JSON description, or a message saying what is wrong with it."""
    unknown = set(data) - FAULT_KEYS
    if unknown:
        return f"unknown fault key(s): {', '.join(sorted(unknown))}"
    prefix = data.get("path_prefix")
    if not isinstance(prefix, str) or not prefix.startswith("/"):
        return "path_prefix must be a path starting with '/'"
    status = data.get("status")
    if status is not None and (not _is_int(status) or not 400 <= status <= 599):
        return "status must be an HTTP error status between 400 and 599"
    count = data.get("count", 1)
    if not _is_int(count) or count < 1:
        return "count must be an integer of 1 or more"
    retry_after = data.get("retry_after")
    if retry_after is not None and (not _is_int(retry_after) or retry_after < 0):
        return "retry_after must be a whole number of seconds, 0 or more"
    hang = data.get("hang")
    if hang is not None and (
        not isinstance(hang, int | float) or isinstance(hang, bool) or hang <= 0
    ):
        return "hang must be a number of seconds greater than 0"
    if status is None and hang is None:
        return "a fault needs a status, a hang, or both"
    return Fault(
        path_prefix=prefix,
        count=count,
        status=status,
        retry_after=retry_after,
        hang=float(hang) if hang is not None else None,
    )


async def add_fault(request: Request) -> Response:
    data = await _json_object(request)
    if isinstance(data, JSONResponse):
        return data
    fault = parse_fault(data)
    if isinstance(fault, str):
        return _bad(fault)
    faults = sandbox_of(request).faults
    faults.add(fault)
    return JSONResponse({"ok": True, "pending": len(faults.pending)})


async def clear_faults(request: Request) -> Response:
    sandbox_of(request).faults.clear()
    return JSONResponse({"ok": True})


async def mutate(request: Request) -> Response:
    """Upsert or delete one record of the live corpus."""
    data = await _json_object(request)
    if isinstance(data, JSONResponse):
        return data
    op, kind, record = data.get("op"), data.get("kind"), data.get("record")
    if op not in ("upsert", "delete"):
        return _bad("op must be 'upsert' or 'delete'")
    if kind not in MUTABLE_KINDS:
        return _bad(f"kind must be one of {', '.join(MUTABLE_KINDS)}")
    if not isinstance(record, dict):
        return _bad("record must be a JSON object")
    sandbox = sandbox_of(request)
    store = sandbox.store
    mutable_kind = cast(MutableKind, kind)
    if op == "delete":
        record_id = record.get("id")
        if not isinstance(record_id, int) or isinstance(record_id, bool):
            return _bad("record.id must be an integer")
        try:
            store.delete(mutable_kind, record_id)
        except NotFoundError as exc:
            return _bad(str(exc), status=404)
        return JSONResponse({"ok": True})
    created = not store.contains(mutable_kind, record.get("id"))
    try:
        stored = store.upsert(mutable_kind, record)
    except CorpusError as exc:
        return _bad(str(exc))
    if sandbox.webhooks is not None:
        sandbox.webhooks.mutated(store, mutable_kind, stored, created=created)
    return JSONResponse({"ok": True, "record": stored.to_corpus_json()})


ROUTES = [
    Route("/_sandbox/stats", get_stats, methods=["GET"]),
    Route("/_sandbox/stats/reset", reset_stats, methods=["POST"]),
    Route("/_sandbox/faults", add_fault, methods=["POST"]),
    Route("/_sandbox/faults", clear_faults, methods=["DELETE"]),
    Route("/_sandbox/mutate", mutate, methods=["POST"]),
]
