"""Pure rules of the MCP edge: credentials from headers, tenant choice, error texts."""

from __future__ import annotations

from pathlib import Path

import pytest

from opindex.config import Config, Secret, ServerConfig, TenantConfig
from opindex.errors import (
    AuthenticationError,
    ConfigError,
    IndexNeedsRebuildError,
    InvalidArgumentError,
    NotFoundError,
    OpindexError,
    RateLimitedError,
    UpstreamUnavailableError,
)
from opindex.mcp.callers import (
    MISSING_CREDENTIAL,
    UNKNOWN_CREDENTIAL,
    Caller,
    credential_from_headers,
    http_caller,
    stdio_tenant,
)
from opindex.mcp.error_text import REDACTED, error_text


def config(*names: str, allow_live: bool = False) -> Config:
    tenants = tuple(
        TenantConfig(name=name, base_url="https://op.example.org", api_key=Secret(f"key-{name}"))
        for name in names
    )
    server = ServerConfig(allow_unknown_credentials_live=allow_live)
    return Config(data_dir=Path("/nonexistent"), tenants=tenants, server=server)


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({"authorization": "Bearer key-a"}, "key-a"),
        ({"Authorization": "bearer   key-a  "}, "key-a"),
        ({"X-OpenProject-Api-Key": "key-b", "Authorization": "Bearer key-a"}, "key-b"),
        ({"x-openproject-api-key": " key-b "}, "key-b"),
        ({"Authorization": "Basic YXBpa2V5OmtleQ=="}, "key"),  # OpenProject's apikey:key
        ({"Authorization": "basic  YXBpa2V5OmtleQ== "}, "key"),
        ({"Authorization": "Basic dXNlcjpwYXNzd29yZA=="}, None),  # user:password
        ({"Authorization": "Basic YXBpa2V5Og=="}, None),  # apikey: without a key
        ({"Authorization": "Basic not-base64!"}, None),
        ({"Authorization": "Bearer "}, None),
        ({}, None),
    ],
)
def test_credential_from_headers(headers: dict[str, str], expected: str | None) -> None:
    assert credential_from_headers(headers) == expected


def test_http_caller_maps_a_key_to_its_tenant_and_refuses_others() -> None:
    two = config("a", "b")
    assert http_caller(two, {"Authorization": "Bearer key-b"}) == Caller("b")
    assert http_caller(two, {"Authorization": "Bearer key-z"}) is UNKNOWN_CREDENTIAL
    assert http_caller(two, None) is MISSING_CREDENTIAL
    live = http_caller(config("a", allow_live=True), {"X-OpenProject-Api-Key": "key-z"})
    assert isinstance(live, Caller) and live.tenant is None
    assert live.live_credential is not None and live.live_credential.reveal() == "key-z"
    assert "key-z" not in repr(live)
    assert "key-z" not in UNKNOWN_CREDENTIAL.message


def test_stdio_serves_the_only_tenant_or_the_chosen_one() -> None:
    assert stdio_tenant(config("a"), None) == "a"
    assert stdio_tenant(config("a", "b"), "b") == "b"
    with pytest.raises(ConfigError, match=r"several tenants are configured \(a, b\)"):
        stdio_tenant(config("a", "b"), None)
    with pytest.raises(ConfigError, match="unknown tenant 'c'"):
        stdio_tenant(config("a", "b"), "c")


@pytest.mark.parametrize(
    ("error", "advice"),
    [
        (InvalidArgumentError("limit must be at most 100"), "Change that argument"),
        (AuthenticationError("401 for key-secret-1234"), "ask the user to check the API key"),
        (NotFoundError("work package 7"), "use an id taken from the results"),
        (RateLimitedError("slow down", retry_after=12), "Wait about 12 s"),
        (UpstreamUnavailableError("timed out"), "source 'index'"),
        (IndexNeedsRebuildError("schema 1"), "opindex rebuild"),
        (ConfigError("bad base_url"), "Tell the user"),
        (OpindexError("something odd"), "something odd."),
    ],
)
def test_error_texts_say_what_to_change(error: OpindexError, advice: str) -> None:
    text = error_text(error, secrets=["key-secret-1234"])
    assert advice in text
    assert "key-secret-1234" not in text


def test_secrets_are_scrubbed_from_any_error_text() -> None:
    text = error_text(NotFoundError("no record for key-secret-1234"), secrets=["key-secret-1234"])
    assert "key-secret-1234" not in text and REDACTED in text
