"""The API key never shows up in reprs, error messages or log records."""

from __future__ import annotations

import base64
import logging
import traceback

import httpx
import pytest
from fake_openproject import (
    API_KEY,
    BASE_URL,
    FakeOpenProject,
    collection,
    error_body,
    make_client,
)

from opindex.errors import (
    AuthenticationError,
    ConfigError,
    OpenProjectError,
    UpstreamUnavailableError,
)
from opindex.openproject import ApiKeyCredential, OpenProjectClient, RetryPolicy
from opindex.openproject.http_session import ApiSession

BASIC_TOKEN = base64.b64encode(f"apikey:{API_KEY}".encode()).decode()
SECRETS = (API_KEY, BASIC_TOKEN)


def assert_no_secret(text: str) -> None:
    for secret in SECRETS:
        assert secret not in text


@pytest.mark.parametrize("scheme", ["basic", "bearer"])
def test_credential_repr_and_str_hide_the_key(scheme: str) -> None:
    credential = ApiKeyCredential(API_KEY, scheme)  # type: ignore[arg-type]
    assert_no_secret(repr(credential))
    assert_no_secret(str(credential))
    assert_no_secret(f"{credential!r} {credential}")
    assert "***" in repr(credential)
    assert credential.matches(API_KEY) and not credential.matches("other")


async def test_client_and_session_reprs_hide_the_key() -> None:
    async with make_client(FakeOpenProject()) as client:
        assert_no_secret(repr(client))
        assert_no_secret(str(client))
        assert BASE_URL in repr(client)
        assert_no_secret(repr(client._session))
        assert_no_secret(repr(vars(client)))


@pytest.mark.parametrize("key", ["", "   "])
def test_empty_key_is_a_config_error(key: str) -> None:
    with pytest.raises(ConfigError):
        OpenProjectClient(BASE_URL, key)


def test_credentials_in_the_url_are_refused_without_echoing_them() -> None:
    with pytest.raises(ConfigError) as caught:
        OpenProjectClient(f"https://apikey:{API_KEY}@op.example.com", "other-key")
    assert_no_secret(str(caught.value))


def test_bad_url_is_a_config_error() -> None:
    for url in ("op.example.com", "ftp://op.example.com", "https://op.example.com/?x=1"):
        with pytest.raises(ConfigError):
            ApiSession(url, ApiKeyCredential(API_KEY))


async def test_errors_and_logs_never_contain_the_key(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)  # httpx/httpcore debug logging included
    fake = (
        FakeOpenProject()
        .route(
            "/api/v3/statuses",
            httpx.Response(503, headers={"Retry-After": "1"}, json=error_body("Unavailable")),
            collection([]),
        )
        .route("/api/v3/work_packages/1", httpx.Response(404, json=error_body("NotFound")))
    )
    errors: list[BaseException] = []
    async with make_client(fake) as client:
        await client.statuses()
        try:
            await client.work_package(1)
        except OpenProjectError as exc:
            errors.append(exc)

    def down(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("connection refused", request=request)

    broken = FakeOpenProject().route("/api/v3/users/me", down)
    async with make_client(broken, retry=RetryPolicy(max_attempts=2, base_delay=0)) as client:
        try:
            await client.me()
        except UpstreamUnavailableError as exc:
            errors.append(exc)

    rejected = FakeOpenProject().route(
        "/api/v3/users/me", httpx.Response(401, json=error_body("Unauthenticated"))
    )
    async with make_client(rejected) as client:
        try:
            await client.me()
        except AuthenticationError as exc:
            errors.append(exc)

    assert [type(e) for e in errors] == [
        type(errors[0]),
        UpstreamUnavailableError,
        AuthenticationError,
    ]
    assert any("retrying" in record.getMessage() for record in caplog.records)
    for record in caplog.records:
        assert_no_secret(record.getMessage())
        assert_no_secret(repr(record.args))
    for error in errors:
        assert_no_secret(str(error))
        assert_no_secret(repr(error))
        assert_no_secret("".join(traceback.format_exception(error)))
