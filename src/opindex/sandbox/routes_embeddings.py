"""``POST /v1/embeddings``: an OpenAI-compatible embeddings endpoint serving the bundled model."""

from __future__ import annotations

import base64
import json
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from opindex.embedding import BundledEmbedder
from opindex.errors import AuthenticationError
from opindex.sandbox.auth import authenticate

MAX_INPUTS = 2048
MAX_TEXT_CHARS = 32_000

# One model for every app of the process: loaded on the first request, shared by threads.
_EMBEDDER = BundledEmbedder()


def _error(status: int, message: str, kind: str, code: str | None = None) -> Response:
    """OpenAI's error body: ``{"error": {"message", "type", "param", "code"}}``."""
    body = {"error": {"message": message, "type": kind, "param": None, "code": code}}
    return JSONResponse(body, status_code=status)


def _invalid(message: str) -> Response:
    return _error(400, message, "invalid_request_error")


def _texts(body: dict[str, Any]) -> list[str] | str:
    """The input texts, or the problem with them."""
    raw = body.get("input")
    texts = [raw] if isinstance(raw, str) else raw
    if not isinstance(texts, list) or not texts:
        return "'input' must be a string or a non-empty array of strings"
    if len(texts) > MAX_INPUTS:
        return f"'input' may hold at most {MAX_INPUTS} strings, got {len(texts)}"
    if not all(isinstance(text, str) for text in texts):
        return "'input' must hold strings (token arrays are not supported)"
    if any(len(text) > MAX_TEXT_CHARS for text in texts):
        return f"each input may be at most {MAX_TEXT_CHARS} characters"
    return texts


async def create_embeddings(request: Request) -> Response:
    try:
        authenticate(request)
    except AuthenticationError as exc:
        return _error(401, str(exc), "invalid_request_error", "invalid_api_key")
    try:
        body = json.loads(await request.body())
    except (ValueError, UnicodeDecodeError):
        return _invalid("the request body must be a JSON object")
    if not isinstance(body, dict):
        return _invalid("the request body must be a JSON object")
    model = body.get("model")
    if not isinstance(model, str) or not model.strip():
        return _invalid("'model' is required")
    texts = _texts(body)
    if isinstance(texts, str):
        return _invalid(texts)
    encoding = body.get("encoding_format", "float")
    if encoding not in ("float", "base64"):
        return _invalid("'encoding_format' must be 'float' or 'base64'")
    dimensions = body.get("dimensions")
    if dimensions is not None and dimensions != _EMBEDDER.dimension:
        return _invalid(f"this model has {_EMBEDDER.dimension} dimensions, got {dimensions!r}")
    vectors = await run_in_threadpool(_EMBEDDER.embed, texts)
    data = [
        {
            "object": "embedding",
            "index": index,
            "embedding": base64.b64encode(row.astype("<f4").tobytes()).decode("ascii")
            if encoding == "base64"
            else [float(value) for value in row],
        }
        for index, row in enumerate(vectors)
    ]
    tokens = sum(len(text.split()) for text in texts)
    return JSONResponse(
        {
            "object": "list",
            "data": data,
            "model": model,
            "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
        }
    )


ROUTES = [Route("/v1/embeddings", create_embeddings, methods=["POST"])]
