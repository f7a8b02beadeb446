"""JSON-RPC messages checked before the SDK reads them: bad ones answered per the spec.

The SDK drops a stdio line that is not JSON or not a JSON-RPC message without a word,
and over both transports reads a request whose ``id`` is ``{}``, ``1.5``, ``true`` or
``Infinity`` as a notification (silently, HTTP 202); over stdio a string holding a lone
surrogate (``"\\ud800"``, or bytes that are not UTF-8) made it answer nothing at all.
JSON-RPC 2.0 wants a Parse error (-32700) for text that is not JSON (or not Unicode)
and an Invalid Request (-32600) for anything else
malformed, both with ``id: null``; MCP requires ids to be strings or integers. This
module answers so, on stdio (one error line per bad line, the session goes on) and on
HTTP (status 400 with the error as body).
"""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator, Awaitable, Callable
from io import TextIOWrapper
from typing import Final

import anyio
import mcp_types as types
from mcp.shared.message import SessionMessage
from pydantic import ValidationError
from starlette.types import ASGIApp, Message, Receive, Scope, Send

MAX_BODY_BYTES: Final = 4 * 1024 * 1024
"""Largest HTTP request body read (the SDK's own limit)."""

Answer = Callable[[SessionMessage], Awaitable[None]]


def _no_constants(name: str) -> object:
    raise ValueError(f"{name} is not valid JSON")


def rejection(raw: str | bytes) -> types.JSONRPCError | None:
    """The error answering a message that is not valid JSON-RPC; None for a good one."""
    try:
        data = json.loads(raw, parse_constant=_no_constants)
        # A lone surrogate (escaped, or an undecodable byte read from stdio) is no
        # Unicode text: re-encoding finds it wherever it hides, keys included.
        json.dumps(data, ensure_ascii=False).encode("utf-8")
    except (ValueError, RecursionError):  # UnicodeError is a ValueError
        return _error(types.PARSE_ERROR, "Parse error: the message is not valid JSON")
    if not isinstance(data, dict):
        return _error(types.INVALID_REQUEST, "Invalid Request: send one JSON-RPC object")
    if "id" in data:
        identifier = data["id"]
        if isinstance(identifier, bool) or not isinstance(identifier, str | int):
            return _error(
                types.INVALID_REQUEST, "Invalid Request: the id must be a string or an integer"
            )
    try:
        types.jsonrpc_message_adapter.validate_python(data, by_name=False)
    except ValidationError:
        return _error(types.INVALID_REQUEST, "Invalid Request: not a JSON-RPC 2.0 message")
    return None


def _error(code: int, message: str) -> types.JSONRPCError:
    return types.JSONRPCError(
        jsonrpc="2.0", id=None, error=types.ErrorData(code=code, message=message)
    )


# --- stdio ---------------------------------------------------------------------------


class CheckedStdin:
    """The lines of stdin that are valid JSON-RPC; the others are answered with an error
    through ``answer`` (set once the transport's writer exists) and not passed on.

    Takes over file descriptor 0 as the SDK would (it now reads /dev/null), so nothing
    else in the process can consume the protocol's input.
    """

    def __init__(self) -> None:
        try:
            private: int | None = os.dup(0)
            devnull = os.open(os.devnull, os.O_RDONLY)
            try:
                os.dup2(devnull, 0)
            finally:
                os.close(devnull)
        except OSError:  # no descriptor 0 to take over: read it in place, as the SDK does
            private = None
        self._private = private
        raw = os.fdopen(0 if private is None else private, "rb", closefd=False)
        # Bytes that are not UTF-8 become lone surrogates, which rejection() refuses.
        text = TextIOWrapper(raw, encoding="utf-8", errors="surrogateescape")
        self._lines = anyio.wrap_file(text)
        self._answer: Answer | None = None
        self._ready = anyio.Event()

    def attach(self, answer: Answer) -> None:
        """Start answering rejected lines through ``answer``."""
        self._answer = answer
        self._ready.set()

    def restore(self) -> None:
        """Give file descriptor 0 back its original input (the private duplicate stays
        open: a worker thread may still be blocked reading it)."""
        if self._private is not None:
            os.dup2(self._private, 0)

    def __aiter__(self) -> AsyncIterator[str]:
        return self._checked()

    async def _checked(self) -> AsyncIterator[str]:
        async for line in self._lines:
            if not line.strip():
                continue
            error = rejection(line)
            if error is None:
                yield line
                continue
            await self._ready.wait()
            assert self._answer is not None
            await self._answer(SessionMessage(error))


# --- HTTP ------------------------------------------------------------------------------


class JsonRpcGuard:
    """ASGI middleware: a POST to the MCP endpoint *path* whose body is not a valid
    JSON-RPC message gets a 400 with the JSON-RPC error; every other request (webhooks
    included) reaches the app unchanged."""

    def __init__(self, app: ASGIApp, path: str) -> None:
        self._app = app
        self._path = path

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            scope["type"] != "http"
            or scope.get("method") != "POST"
            or scope.get("path", "").rstrip("/") != self._path.rstrip("/")
        ):
            await self._app(scope, receive, send)
            return
        body, complete = await _read_body(receive)
        if not complete:
            await respond_error(
                send, 413, _error(types.INVALID_REQUEST, "Invalid Request: too large")
            )
            return
        error = rejection(body)
        if error is not None:
            await respond_error(send, 400, error)
            return
        await self._app(scope, _replay(body, receive), send)


async def _read_body(receive: Receive) -> tuple[bytes, bool]:
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return b"".join(chunks), True
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > MAX_BODY_BYTES:
            return b"", False
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks), True


def _replay(body: bytes, receive: Receive) -> Receive:
    sent = False

    async def replayed() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()  # http.disconnect, when it comes

    return replayed


async def respond_error(send: Send, status: int, error: types.JSONRPCError) -> None:
    """Answer an HTTP request with *status* and the JSON-RPC *error* as its body."""
    payload = error.model_dump_json(by_alias=True, exclude_unset=True).encode("utf-8")
    headers: list[tuple[bytes, bytes]] = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(payload)).encode("ascii")),
    ]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": payload})
