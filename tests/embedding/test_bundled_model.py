"""The bundled WordLlama embedder: real model, offline, unit vectors, loaded only when used."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from opindex.embedding import BundledEmbedder, Embedder, unit_rows
from opindex.errors import EmbeddingError


@pytest.fixture(scope="module")
def model() -> BundledEmbedder:
    return BundledEmbedder()


def test_vectors_are_unit_length_float32_rows_of_256(model: BundledEmbedder) -> None:
    vectors = model.embed(["Renew the TLS certificate", "Office move planning", "x"])
    assert vectors.dtype == np.float32 and vectors.shape == (3, 256)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert isinstance(model, Embedder)


def test_a_paraphrase_is_nearer_than_an_unrelated_text(model: BundledEmbedder) -> None:
    target, other, query = model.embed(
        [
            "Checkout page slow on mobile devices",
            "Desk plan for the new office floor",
            "customers on phones wait ages before they can pay",
        ]
    )
    assert float(query @ target) > float(query @ other) + 0.05


def test_the_same_text_gives_the_same_vector_alone_or_in_a_batch(model: BundledEmbedder) -> None:
    alone = model.embed(["rotate the credentials of the payment gateway"])
    batch = model.embed(["something else", "rotate the credentials of the payment gateway"])
    assert np.allclose(alone[0], batch[1], atol=1e-6)


def test_empty_text_is_a_zero_row_and_no_text_an_empty_matrix(model: BundledEmbedder) -> None:
    vectors = model.embed(["", "   "])
    assert vectors.shape == (2, 256) and not vectors.any()
    assert model.embed([]).shape == (0, 256)


def test_model_id_names_the_weights(model: BundledEmbedder) -> None:
    assert model.model_id.startswith("wordllama/l2_supercat_256@")
    assert len(model.model_id.rsplit("@", 1)[1]) == 16
    assert BundledEmbedder().model_id == model.model_id


def test_unit_rows_rejects_wrong_shapes_and_non_finite_values() -> None:
    with pytest.raises(EmbeddingError, match="expected 2 vectors"):
        unit_rows([[1.0, 0.0]], rows=2, dimension=2, model_id="m")
    with pytest.raises(EmbeddingError, match="expected vectors of 3 dimensions"):
        unit_rows([[1.0, 0.0]], rows=1, dimension=3, model_id="m")
    with pytest.raises(EmbeddingError, match="non-finite"):
        unit_rows([[float("nan"), 0.0]], rows=1, dimension=2, model_id="m")
    with pytest.raises(EmbeddingError, match="no numeric vectors"):
        unit_rows([["a", "b"]], rows=1, dimension=2, model_id="m")
    assert np.allclose(unit_rows([[3.0, 4.0]], rows=1, dimension=2, model_id="m"), [[0.6, 0.8]])


PROBE = """
import json, sys
import opindex.config, opindex.embedding
from opindex.embedding import BundledEmbedder, EmbeddingConfig
embedder = BundledEmbedder()
print(json.dumps(sorted(sys.modules)))
"""


def test_configuration_and_the_embedder_object_do_not_load_the_model() -> None:
    done = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, check=True, timeout=60
    )
    modules = set(json.loads(done.stdout))
    assert "wordllama" not in modules
    assert "opindex.embedding.http_provider" not in modules
