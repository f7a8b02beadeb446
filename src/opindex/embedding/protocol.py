"""The embedder seam: what turns texts into unit-length float32 vectors, and its checks."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np
from numpy.typing import NDArray

from opindex.errors import EmbeddingError

Vectors = NDArray[np.float32]


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into vectors of one model.

    ``model_id`` names the model (and anything else that changes its vectors): vectors
    of two different ids are never compared or stored together. ``embed`` returns one
    row per text, float32, each row of length 1 (a text the model sees nothing in gives
    a row of zeros).
    """

    @property
    def model_id(self) -> str: ...

    @property
    def dimension(self) -> int: ...

    def embed(self, texts: Sequence[str]) -> Vectors: ...


def unit_rows(matrix: object, *, rows: int, dimension: int | None, model_id: str) -> Vectors:
    """*matrix* as a float32 array of *rows* unit-length rows (zero rows stay zero).

    EmbeddingError if it is not a 2-D array of that many finite rows, or (when
    *dimension* is given) its width differs.
    """
    try:
        array = np.asarray(matrix, dtype=np.float32)
    except (TypeError, ValueError) as exc:
        raise EmbeddingError(f"{model_id}: the model returned no numeric vectors") from exc
    if rows == 0:
        width = dimension if dimension is not None else 0
        return np.zeros((0, width), dtype=np.float32)
    if array.ndim != 2 or array.shape[0] != rows:
        raise EmbeddingError(
            f"{model_id}: expected {rows} vectors, got an array of shape {array.shape}"
        )
    if dimension is not None and array.shape[1] != dimension:
        raise EmbeddingError(
            f"{model_id}: expected vectors of {dimension} dimensions, got {array.shape[1]}"
        )
    if not np.isfinite(array).all():
        raise EmbeddingError(f"{model_id}: the model returned non-finite values")
    norms = np.linalg.norm(array, axis=1, keepdims=True)
    safe = np.where(norms > 0.0, norms, 1.0).astype(np.float32)
    return np.ascontiguousarray(array / safe, dtype=np.float32)
