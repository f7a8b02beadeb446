"""Embedders: the seam that turns texts into vectors (bundled offline model or HTTP provider).

Only the settings are imported eagerly (the configuration reads them); the embedders,
numpy and httpx load on first use of their names, and the bundled model on first embed.
"""

from typing import TYPE_CHECKING

from opindex.embedding.settings import EMBEDDING_KEY, EmbeddingConfig, parse_embedding
from opindex.lazy_names import lazy_getattr

if TYPE_CHECKING:
    from opindex.embedding.bundled import BundledEmbedder
    from opindex.embedding.http_provider import OpenAIEmbedder
    from opindex.embedding.protocol import Embedder, Vectors, unit_rows
    from opindex.embedding.providers import create_embedder

__getattr__ = lazy_getattr(
    __name__,
    {
        "BundledEmbedder": ".bundled",
        "OpenAIEmbedder": ".http_provider",
        "Embedder": ".protocol",
        "Vectors": ".protocol",
        "unit_rows": ".protocol",
        "create_embedder": ".providers",
    },
    globals(),
)

__all__ = [
    "EMBEDDING_KEY",
    "BundledEmbedder",
    "Embedder",
    "EmbeddingConfig",
    "OpenAIEmbedder",
    "Vectors",
    "create_embedder",
    "parse_embedding",
    "unit_rows",
]
