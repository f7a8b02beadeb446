"""An OpenAI-compatible ``POST {base_url}/embeddings`` provider over HTTP (httpx), batched."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import httpx
import numpy as np

from opindex.embedding.protocol import Vectors, unit_rows
from opindex.errors import EmbeddingError, EmbeddingProviderError
from opindex.secret import Secret

_MESSAGE_LIMIT = 200
_PROBE_TEXT = "dimension probe"


class OpenAIEmbedder:
    """Vectors from an OpenAI-compatible embeddings endpoint (OpenAI, vLLM, Ollama, the
    sandbox...): *base_url* is the API root (``https://api.openai.com/v1``), texts go out
    in batches of *batch_size*, the key (if any) as ``Authorization: Bearer``.

    ``dimension`` is *dimensions* when configured (then also sent as the ``dimensions``
    request field), else learned from one probe request. Every failure is an
    :class:`EmbeddingProviderError` whose message never holds the key.
    """

    def __init__(
        self,
        *,
        base_url: str,
        model: str,
        api_key: Secret | None = None,
        dimensions: int | None = None,
        batch_size: int = 64,
        timeout_seconds: float = 30.0,
    ) -> None:
        if batch_size < 1:
            raise ValueError("batch_size must be at least 1")
        self._url = base_url.rstrip("/") + "/embeddings"
        self._model = model
        self._api_key = api_key
        self._dimensions = dimensions
        self._batch_size = batch_size
        self._timeout = timeout_seconds
        self._lock = threading.Lock()
        self._client: httpx.Client | None = None
        self._learned_dimension: int | None = dimensions

    @property
    def model_id(self) -> str:
        suffix = f"/{self._dimensions}" if self._dimensions is not None else ""
        return f"openai-compatible:{self._model}{suffix}"

    @property
    def dimension(self) -> int:
        if self._learned_dimension is None:
            self.embed([_PROBE_TEXT])
        assert self._learned_dimension is not None
        return self._learned_dimension

    def embed(self, texts: Sequence[str]) -> Vectors:
        parts = [
            self._batch(list(texts[start : start + self._batch_size]))
            for start in range(0, len(texts), self._batch_size)
        ]
        if not parts:
            return np.zeros((0, self._learned_dimension or 0), dtype=np.float32)
        return np.ascontiguousarray(np.vstack(parts), dtype=np.float32)

    def close(self) -> None:
        with self._lock:
            if self._client is not None:
                self._client.close()
                self._client = None

    def _batch(self, texts: list[str]) -> Vectors:
        body: dict[str, Any] = {"model": self._model, "input": texts, "encoding_format": "float"}
        if self._dimensions is not None:
            body["dimensions"] = self._dimensions
        headers = {"Accept": "application/json"}
        if self._api_key is not None:
            headers["Authorization"] = f"Bearer {self._api_key.reveal()}"
        try:
            response = self._http().post(self._url, json=body, headers=headers)
        except httpx.HTTPError as exc:
            raise EmbeddingProviderError(
                f"embedding provider at {self._url} could not be reached ({type(exc).__name__})"
            ) from exc
        if response.status_code != 200:
            raise EmbeddingProviderError(
                _status_message(self._url, response), status=response.status_code
            )
        vectors = self._vectors(response, len(texts))
        if self._learned_dimension is None:
            self._learned_dimension = int(vectors.shape[1])
        return vectors

    def _vectors(self, response: httpx.Response, count: int) -> Vectors:
        try:
            payload = response.json()
            data = payload["data"]
            ordered = sorted(data, key=lambda item: int(item["index"]))
            if [int(item["index"]) for item in ordered] != list(range(count)):
                raise ValueError(f"indexes do not cover 0..{count - 1}")
            raw = [item["embedding"] for item in ordered]
        except (ValueError, KeyError, TypeError) as exc:
            raise EmbeddingProviderError(
                f"embedding provider at {self._url} answered an unusable body"
                f" ({type(exc).__name__}: {str(exc)[:_MESSAGE_LIMIT]})"
            ) from exc
        try:
            return unit_rows(
                raw, rows=count, dimension=self._learned_dimension, model_id=self.model_id
            )
        except EmbeddingError as exc:
            raise EmbeddingProviderError(f"embedding provider at {self._url}: {exc}") from exc

    def _http(self) -> httpx.Client:
        with self._lock:
            if self._client is None:
                self._client = httpx.Client(timeout=self._timeout)
            return self._client


def _status_message(url: str, response: httpx.Response) -> str:
    detail = ""
    try:
        error = response.json().get("error")
        if isinstance(error, dict) and isinstance(error.get("message"), str):
            detail = f": {error['message'][:_MESSAGE_LIMIT]}"
    except (ValueError, AttributeError):
        pass
    status = response.status_code
    if status in (401, 403):
        hint = " (check the key in the variable named by api_key_env)"
    elif status == 404:
        hint = " (check base_url: it is the API root, e.g. https://host/v1, and the model name)"
    else:
        hint = ""
    return f"embedding provider at {url} answered HTTP {status}{detail}{hint}"
