"""The embedder a tenant's settings name, built on demand (nothing loaded or contacted)."""

from __future__ import annotations

from opindex.embedding.bundled import BundledEmbedder
from opindex.embedding.http_provider import OpenAIEmbedder
from opindex.embedding.protocol import Embedder
from opindex.embedding.settings import EmbeddingConfig


def create_embedder(config: EmbeddingConfig) -> Embedder:
    """The embedder *config* describes (nothing is loaded or contacted yet)."""
    if config.provider == "bundled":
        return BundledEmbedder()
    assert config.base_url is not None and config.model is not None
    return OpenAIEmbedder(
        base_url=config.base_url,
        model=config.model,
        api_key=config.api_key,
        dimensions=config.dimensions,
        batch_size=config.batch_size,
        timeout_seconds=float(config.timeout_seconds),
    )
