"""The [tenants.embedding] table: defaults, the OpenAI-compatible provider, clear errors."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest

from opindex.config import Config, load_config_file
from opindex.embedding import BundledEmbedder, EmbeddingConfig, OpenAIEmbedder, create_embedder
from opindex.errors import ConfigError

TENANT = """
[[tenants]]
name = "acme"
base_url = "https://openproject.example.com/"
api_key = "0123456789abcdef0123456789abcdef"
"""
PROVIDER_KEY = "sk-test-embedding-0123456789"


def load(tmp_path: Path, embedding: str, env: dict[str, str] | None = None) -> Config:
    path = tmp_path / "opindex.toml"
    path.write_text(TENANT + textwrap.dedent(embedding), encoding="utf-8")
    path.chmod(0o600)
    return load_config_file(path, env=env or {"HOME": str(tmp_path)})


def test_a_tenant_without_the_table_uses_the_bundled_model(tmp_path: Path) -> None:
    config = load(tmp_path, "")
    assert config.tenants[0].embedding == EmbeddingConfig()
    assert isinstance(create_embedder(config.tenants[0].embedding), BundledEmbedder)


def test_bundled_may_be_named_explicitly(tmp_path: Path) -> None:
    config = load(tmp_path, '[tenants.embedding]\nprovider = "bundled"\n')
    assert config.tenants[0].embedding.provider == "bundled"


def test_an_openai_compatible_provider_reads_its_key_from_the_environment(
    tmp_path: Path,
) -> None:
    config = load(
        tmp_path,
        """
        [tenants.embedding]
        provider = "openai"
        base_url = "https://llm.example.com/v1/"
        model = "text-embedding-3-small"
        api_key_env = "EMBED_KEY"
        dimensions = 512
        batch_size = 16
        timeout_seconds = 10
        """,
        env={"HOME": str(tmp_path), "EMBED_KEY": PROVIDER_KEY},
    )
    embedding = config.tenants[0].embedding
    assert embedding.provider == "openai"
    assert embedding.base_url == "https://llm.example.com/v1"
    assert embedding.model == "text-embedding-3-small"
    assert embedding.api_key is not None and embedding.api_key.reveal() == PROVIDER_KEY
    assert (embedding.dimensions, embedding.batch_size, embedding.timeout_seconds) == (512, 16, 10)
    assert PROVIDER_KEY not in repr(config)
    embedder = create_embedder(embedding)
    assert isinstance(embedder, OpenAIEmbedder)
    assert embedder.model_id == "openai-compatible:text-embedding-3-small/512"
    assert embedder.dimension == 512  # configured: no request needed


def test_a_local_provider_needs_no_key(tmp_path: Path) -> None:
    config = load(
        tmp_path,
        '[tenants.embedding]\nprovider = "openai"\nbase_url = "http://127.0.0.1:8080/v1"\n'
        'model = "nomic-embed-text"\n',
    )
    assert config.tenants[0].embedding.api_key is None


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ('provider = "bert"', "provider: must be 'bundled' or 'openai', got 'bert'"),
        ('model = "x"', "tenants[0].embedding.model: only applies to provider = 'openai'"),
        ('provider = "openai"\nmodel = "m"', "tenants[0].embedding.base_url: missing"),
        ('provider = "openai"\nbase_url = "http://h/v1"', "tenants[0].embedding.model: missing"),
        (
            'provider = "openai"\nbase_url = "ftp://h/v1"\nmodel = "m"',
            "base_url: must be an http(s) URL",
        ),
        (
            'provider = "openai"\nbase_url = "https://u:p@h/v1"\nmodel = "m"',
            "must not hold credentials",
        ),
        (
            'provider = "openai"\nbase_url = "http://h/v1"\nmodel = "m"\napi_key_env = "NOPE"',
            "api_key_env: the environment variable NOPE is not set",
        ),
        (
            'provider = "openai"\nbase_url = "http://h/v1"\nmodel = "m"\nbatch_size = 0',
            "batch_size: must be between 1 and 2048",
        ),
        (
            'provider = "openai"\nbase_url = "http://h/v1"\nmodel = "m"\ndimensions = "big"',
            "dimensions: must be an integer",
        ),
        ('modle = "m"', "unknown key 'modle' (did you mean 'model'?)"),
    ],
)
def test_bad_settings_name_the_key(tmp_path: Path, table: str, message: str) -> None:
    with pytest.raises(ConfigError, match=re.escape(message)):
        load(tmp_path, "[tenants.embedding]\n" + table + "\n")


def test_the_embedding_key_must_be_a_table(tmp_path: Path) -> None:
    path = tmp_path / "opindex.toml"
    path.write_text(TENANT + 'embedding = "bundled"\n', encoding="utf-8")
    path.chmod(0o600)
    with pytest.raises(ConfigError, match=r"tenants\[0\]\.embedding: must be a table"):
        load_config_file(path, env={"HOME": str(tmp_path)})


def test_the_readme_example_is_a_valid_table(tmp_path: Path) -> None:
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    start = readme.index("[tenants.embedding]")
    example = readme[start : readme.index("```", start)]
    env = {"HOME": str(tmp_path), "ACME_EMBEDDING_KEY": PROVIDER_KEY}
    embedding = load(tmp_path, example, env=env).tenants[0].embedding
    assert embedding.provider == "openai" and embedding.model == "text-embedding-3-small"
