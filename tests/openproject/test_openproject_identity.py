"""Identity check: users/me runs first, the anonymous user and wrong accounts are refused."""

from __future__ import annotations

import asyncio
import base64
from typing import Any

import httpx
import pytest
from fake_openproject import (
    API_KEY,
    ME,
    FakeOpenProject,
    collection,
    error_body,
    make_client,
)

from opindex.errors import AuthenticationError
from opindex.openproject import OpenProjectClient, is_anonymous

STATUSES = "/api/v3/statuses"
STATUS_LIST = collection([{"_type": "Status", "id": 1, "name": "New", "isClosed": False}])
# What a public instance answers when the Authorization header never arrived.
ANONYMOUS = {"_type": "User", "id": 2, "name": "Anonymous", "login": "", "status": "active"}


async def test_identity_is_checked_before_the_first_data_request() -> None:
    fake = FakeOpenProject().route(STATUSES, STATUS_LIST)
    async with make_client(fake) as client:
        assert client.identity is None
        await client.statuses()
        await client.statuses()
        assert client.identity is not None and client.identity.login == "sync-bot"
        assert client.request_count == 3
    assert fake.paths() == ["/api/v3/users/me", STATUSES, STATUSES]


async def test_concurrent_first_requests_share_one_identity_check() -> None:
    fake = FakeOpenProject().route(STATUSES, STATUS_LIST)
    async with make_client(fake) as client:
        await asyncio.gather(*(client.statuses() for _ in range(5)))
    assert fake.paths().count("/api/v3/users/me") == 1
    assert fake.paths()[0] == "/api/v3/users/me"


@pytest.mark.parametrize(
    "me",
    [
        ANONYMOUS,
        {key: value for key, value in ANONYMOUS.items() if key != "login"},
        {"_type": "AnonymousUser", "id": 2, "name": "Anonymous", "login": "anonymous"},
        {"_type": "User", "name": "Nobody", "login": "x"},  # no id
    ],
)
async def test_anonymous_user_is_an_authentication_error(me: dict[str, Any]) -> None:
    fake = FakeOpenProject(me=me).route(STATUSES, STATUS_LIST)
    async with make_client(fake) as client:
        with pytest.raises(AuthenticationError) as caught:
            await client.statuses()
        assert client.identity is None
    assert "anonymous" in str(caught.value)
    assert fake.paths() == ["/api/v3/users/me"]  # no data was read as anonymous


async def test_me_returns_the_account() -> None:
    fake = FakeOpenProject()
    async with make_client(fake) as client:
        user = await client.me()
    assert (user.id, user.login, user.name) == (7, "sync-bot", "Sync Bot")


@pytest.mark.parametrize(
    "expectation",
    [{"expected_user_id": 8}, {"expected_login": "someone-else"}],
)
async def test_a_different_account_than_expected_is_refused(expectation: dict[str, Any]) -> None:
    fake = FakeOpenProject().route(STATUSES, STATUS_LIST)
    async with make_client(fake, **expectation) as client:
        with pytest.raises(AuthenticationError):
            await client.statuses()
    assert STATUSES not in fake.paths()


async def test_the_expected_account_passes() -> None:
    fake = FakeOpenProject().route(STATUSES, STATUS_LIST)
    async with make_client(fake, expected_user_id=7, expected_login="sync-bot") as client:
        assert len(await client.statuses()) == 1


async def test_rejected_key_is_an_authentication_error() -> None:
    body = error_body("Unauthenticated", "You did not provide the correct credentials.")
    fake = FakeOpenProject().route("/api/v3/users/me", httpx.Response(401, json=body))
    async with make_client(fake) as client:
        with pytest.raises(AuthenticationError) as caught:
            await client.statuses()
    assert caught.value.status == 401
    assert caught.value.error_identifier == "urn:openproject-org:api:v3:errors:Unauthenticated"


@pytest.mark.parametrize(
    ("scheme", "expected"),
    [
        ("basic", "Basic " + base64.b64encode(f"apikey:{API_KEY}".encode()).decode()),
        ("bearer", f"Bearer {API_KEY}"),
    ],
)
async def test_every_request_carries_the_credential(scheme: str, expected: str) -> None:
    fake = FakeOpenProject().route(STATUSES, STATUS_LIST)
    client = OpenProjectClient(
        "http://op.test/",
        API_KEY,
        auth_scheme=scheme,
        transport=fake.transport(),  # type: ignore[arg-type]
    )
    async with client:
        await client.statuses()
    assert [r.headers["Authorization"] for r in fake.requests] == [expected, expected]
    assert all(r.url.host == "op.test" for r in fake.requests)


async def test_base_url_with_a_sub_path_and_api_suffix() -> None:
    fake = FakeOpenProject(me=ME)
    fake.routes["/openproject/api/v3/users/me"] = [dict(ME)]
    client = OpenProjectClient(
        "https://host/openproject/api/v3/", API_KEY, transport=fake.transport()
    )
    async with client:
        await client.me()
        assert client.base_url == "https://host/openproject"
    assert fake.paths() == ["/openproject/api/v3/users/me"]


def test_is_anonymous_accepts_a_real_account() -> None:
    assert not is_anonymous(ME)
    assert is_anonymous(ANONYMOUS)
