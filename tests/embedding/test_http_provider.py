"""The OpenAI-compatible provider against the sandbox's real ``POST /v1/embeddings`` over HTTP."""

from __future__ import annotations

import base64
import socket
from collections.abc import Iterator

import httpx
import numpy as np
import pytest
from tests.support.corpora import varied_corpus
from tests.support.sandbox import ADMIN_KEY, SandboxHandle, running_sandbox

from opindex.embedding import BundledEmbedder, OpenAIEmbedder
from opindex.errors import EmbeddingProviderError
from opindex.secret import Secret

TEXTS = [
    "Renew the TLS certificate of the customer portal",
    "Office move planning",
    "",
    "customers on phones wait ages before they can pay",
    "Désolé: ünïcode ça marche",
]


@pytest.fixture(scope="module")
def sandbox() -> Iterator[SandboxHandle]:
    with running_sandbox(varied_corpus()) as handle:
        yield handle


def provider(sandbox: SandboxHandle, **options: object) -> OpenAIEmbedder:
    settings: dict[str, object] = {
        "base_url": f"{sandbox.base_url}/v1",
        "model": "sandbox-wordllama",
        "api_key": Secret(ADMIN_KEY),
        **options,
    }
    return OpenAIEmbedder(**settings)  # type: ignore[arg-type]


def test_provider_vectors_equal_the_bundled_models_in_any_batching(
    sandbox: SandboxHandle,
) -> None:
    local = BundledEmbedder().embed(TEXTS)
    for batch_size in (1, 2, 64):
        remote = provider(sandbox, batch_size=batch_size).embed(TEXTS)
        assert remote.dtype == np.float32 and remote.shape == (5, 256)
        assert np.allclose(remote, local, atol=1e-6)


def test_dimension_is_learned_from_one_probe(sandbox: SandboxHandle) -> None:
    embedder = provider(sandbox)
    assert embedder.dimension == 256
    assert embedder.model_id == "openai-compatible:sandbox-wordllama"
    assert embedder.embed([]).shape == (0, 256)


def test_a_wrong_key_is_a_provider_error_that_never_shows_the_key(sandbox: SandboxHandle) -> None:
    wrong = "wrong-key-0123456789-do-not-print"
    with pytest.raises(EmbeddingProviderError) as caught:
        provider(sandbox, api_key=Secret(wrong)).embed(["x"])
    assert caught.value.status == 401
    assert "HTTP 401" in str(caught.value) and "api_key_env" in str(caught.value)
    assert wrong not in str(caught.value)


def test_a_dimension_the_model_lacks_is_refused_with_the_servers_reason(
    sandbox: SandboxHandle,
) -> None:
    with pytest.raises(EmbeddingProviderError, match="has 256 dimensions") as caught:
        provider(sandbox, dimensions=64).embed(["x"])
    assert caught.value.status == 400


def test_a_wrong_base_url_says_what_to_check(sandbox: SandboxHandle) -> None:
    with pytest.raises(EmbeddingProviderError, match=r"HTTP 404.*check base_url"):
        provider(sandbox, base_url=sandbox.base_url).embed(["x"])


def test_an_unreachable_provider_is_a_provider_error_without_status() -> None:
    with socket.socket() as sock:  # a port nobody listens on: bound, never listening
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
        embedder = OpenAIEmbedder(base_url=f"http://127.0.0.1:{port}/v1", model="m")
        with pytest.raises(EmbeddingProviderError, match="could not be reached") as caught:
            embedder.embed(["x"])
    assert caught.value.status is None


def post(sandbox: SandboxHandle, body: object, key: str | None = ADMIN_KEY) -> httpx.Response:
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    return httpx.post(f"{sandbox.base_url}/v1/embeddings", json=body, headers=headers, timeout=30)


def test_the_endpoint_answers_in_openais_shape(sandbox: SandboxHandle) -> None:
    response = post(sandbox, {"model": "m", "input": "one text"})
    assert response.status_code == 200
    body = response.json()
    assert body["object"] == "list" and body["model"] == "m"
    assert [item["index"] for item in body["data"]] == [0]
    assert body["data"][0]["object"] == "embedding" and len(body["data"][0]["embedding"]) == 256
    assert body["usage"] == {"prompt_tokens": 2, "total_tokens": 2}


def test_base64_encoding_carries_the_same_floats(sandbox: SandboxHandle) -> None:
    plain = post(sandbox, {"model": "m", "input": ["a text"]}).json()["data"][0]["embedding"]
    packed = post(sandbox, {"model": "m", "input": ["a text"], "encoding_format": "base64"})
    decoded = np.frombuffer(base64.b64decode(packed.json()["data"][0]["embedding"]), "<f4")
    assert np.allclose(decoded, plain, atol=1e-7)


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ([1, 2], "must be a JSON object"),
        ({"input": "x"}, "'model' is required"),
        ({"model": "m"}, "'input' must be a string or a non-empty array"),
        ({"model": "m", "input": []}, "'input' must be a string or a non-empty array"),
        ({"model": "m", "input": [[1, 2, 3]]}, "token arrays are not supported"),
        ({"model": "m", "input": "x", "encoding_format": "int8"}, "'encoding_format'"),
        ({"model": "m", "input": ["x"] * 2049}, "at most 2048 strings"),
    ],
)
def test_bad_requests_get_an_openai_error_body(
    sandbox: SandboxHandle, body: object, message: str
) -> None:
    response = post(sandbox, body)
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["type"] == "invalid_request_error" and message in error["message"]


def test_no_or_an_unknown_key_is_refused(sandbox: SandboxHandle) -> None:
    for key in (None, "nobody"):
        response = post(sandbox, {"model": "m", "input": "x"}, key=key)
        assert response.status_code == 401
        assert response.json()["error"]["code"] == "invalid_api_key"
