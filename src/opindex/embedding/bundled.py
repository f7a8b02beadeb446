"""The bundled default embedder: the WordLlama model shipped inside its wheel, loaded lazily."""

from __future__ import annotations

import hashlib
import importlib.util
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from opindex.embedding.protocol import Vectors, unit_rows
from opindex.errors import EmbeddingError

MODEL_NAME = "l2_supercat"
DIMENSION = 256
WEIGHTS_FILE = f"weights/{MODEL_NAME}_{DIMENSION}.safetensors"
_BATCH = 256


def wordllama_root() -> Path:
    """The installed ``wordllama`` package folder, found without importing it."""
    spec = importlib.util.find_spec("wordllama")
    if spec is None or spec.origin is None:
        raise EmbeddingError(
            "the bundled embedding model is not installed: install the 'wordllama' package"
            " (a dependency of opindex), or configure [tenants.embedding] provider = 'openai'"
        )
    return Path(spec.origin).parent


class BundledEmbedder:
    """WordLlama ``l2_supercat`` (256 dimensions), offline: the weights and the tokenizer
    come from the installed wheel; nothing is ever downloaded.

    Neither ``wordllama`` nor its weights are touched until the first ``embed`` or
    ``model_id`` (importing it costs ~0.7 s, so a command that never embeds never pays).
    Safe to share between threads.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._model: Any = None
        self._model_id: str | None = None

    @property
    def dimension(self) -> int:
        return DIMENSION

    @property
    def model_id(self) -> str:
        """``wordllama/l2_supercat_256@`` + the first 16 hex digits of the weights' SHA-256:
        other weights (a new wheel that changed them) give another id."""
        with self._lock:
            if self._model_id is None:
                weights = wordllama_root() / WEIGHTS_FILE
                try:
                    digest = hashlib.sha256(weights.read_bytes()).hexdigest()
                except OSError as exc:
                    raise EmbeddingError(
                        f"the bundled embedding model's weights cannot be read ({weights.name}):"
                        " reinstall the 'wordllama' package"
                    ) from exc
                self._model_id = f"wordllama/{MODEL_NAME}_{DIMENSION}@{digest[:16]}"
            return self._model_id

    def embed(self, texts: Sequence[str]) -> Vectors:
        model = self._loaded()
        if not texts:
            return unit_rows([], rows=0, dimension=DIMENSION, model_id=self.model_id)
        # A blank text carries no meaning: the model sees nothing and gives a zero row.
        cleaned = [text if text.strip() else "" for text in texts]
        raw = model.embed(cleaned, norm=False, batch_size=_BATCH)
        return unit_rows(raw, rows=len(texts), dimension=DIMENSION, model_id=self.model_id)

    def _loaded(self) -> Any:
        with self._lock:
            if self._model is None:
                root = wordllama_root()
                try:
                    from wordllama import WordLlama

                    self._model = WordLlama.load(
                        config=MODEL_NAME,
                        dim=DIMENSION,
                        cache_dir=root,
                        disable_download=True,
                    )
                except (ImportError, OSError, ValueError, RuntimeError) as exc:
                    raise EmbeddingError(
                        f"the bundled embedding model cannot be loaded ({type(exc).__name__}):"
                        " reinstall the 'wordllama' package"
                    ) from exc
            return self._model
