"""A tenant's ``[tenants.embedding]`` table: which embedder makes its vectors, validated."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal, cast
from urllib.parse import urlsplit

from opindex.config_table import ConfigTable
from opindex.secret import Secret

Provider = Literal["bundled", "openai"]
EMBEDDING_KEY = "embedding"
_OPENAI_KEYS = {"base_url", "model", "api_key_env", "dimensions", "batch_size", "timeout_seconds"}
_ALL_KEYS = {"provider", *_OPENAI_KEYS}


@dataclass(frozen=True, slots=True)
class EmbeddingConfig:
    """How a tenant's texts become vectors.

    ``provider = "bundled"`` (the default): the model shipped inside the ``wordllama``
    wheel, offline. ``provider = "openai"``: an OpenAI-compatible ``/embeddings``
    endpoint at ``base_url`` (the API root) for ``model``, the key read from the
    environment variable ``api_key_env`` (none sent when it is not set); ``dimensions``
    is sent when given; ``batch_size`` texts per request; ``timeout_seconds`` per request.
    """

    provider: Provider = "bundled"
    base_url: str | None = None
    model: str | None = None
    api_key: Secret | None = None
    dimensions: int | None = None
    batch_size: int = 64
    timeout_seconds: int = 30


def parse_embedding(tenant: ConfigTable, env: Mapping[str, str]) -> EmbeddingConfig:
    """The tenant's embedding settings (the bundled default when it has no such table)."""
    if EMBEDDING_KEY not in tenant.data:
        return EmbeddingConfig()
    table = tenant.table(EMBEDDING_KEY)
    table.reject_unknown(_ALL_KEYS)
    provider = table.string("provider", required=False) or "bundled"
    if provider == "bundled":
        extra = sorted(set(table.data) & _OPENAI_KEYS)
        if extra:
            raise table.error(extra[0], "only applies to provider = 'openai'")
        return EmbeddingConfig()
    if provider != "openai":
        raise table.error("provider", f"must be 'bundled' or 'openai', got {provider!r}")
    base_url = cast(str, table.string("base_url"))
    parts = urlsplit(base_url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise table.error(
            "base_url", f"must be an http(s) URL like https://host/v1, got {base_url!r}"
        )
    if parts.username or parts.password or parts.query or parts.fragment:
        raise table.error("base_url", "must not hold credentials, a query or a fragment")
    dimensions = table.data.get("dimensions")
    return EmbeddingConfig(
        provider="openai",
        base_url=base_url.rstrip("/"),
        model=cast(str, table.string("model")),
        api_key=_api_key(table, env),
        dimensions=None
        if dimensions is None
        else table.integer("dimensions", 0, minimum=1, maximum=8192),
        batch_size=table.integer("batch_size", 64, minimum=1, maximum=2048),
        timeout_seconds=table.integer("timeout_seconds", 30, minimum=1, maximum=600),
    )


def _api_key(table: ConfigTable, env: Mapping[str, str]) -> Secret | None:
    variable = table.string("api_key_env", required=False)
    if variable is None:
        return None
    value = env.get(variable, "").strip()
    if not value:
        raise table.error("api_key_env", f"the environment variable {variable} is not set")
    if any(ord(char) < 0x20 or ord(char) == 0x7F for char in value):
        raise table.error("api_key_env", f"{variable} must not contain control characters")
    return Secret(value)
