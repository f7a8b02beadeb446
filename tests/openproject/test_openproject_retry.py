"""Retry and backoff rules of the OpenProject session, driven through httpx.MockTransport."""

from __future__ import annotations

import email.utils

import httpx
import pytest
from fake_openproject import (
    FakeOpenProject,
    RecordingSleep,
    collection,
    error_body,
    make_client,
)

from opindex.errors import (
    AuthenticationError,
    NotFoundError,
    PermissionDeniedError,
    RateLimitedError,
    ServerError,
    UpstreamUnavailableError,
)
from opindex.openproject import RetryPolicy
from opindex.openproject.outage import OutageMemory
from opindex.openproject.retry import server_requested_delay

STATUSES = "/api/v3/statuses"
OK = collection([{"_type": "Status", "id": 1, "name": "New", "isClosed": False}])
NOW = 1_780_000_000.0  # a fixed "current time" (epoch seconds) for RateLimit-Reset


def throttled(headers: dict[str, str] | None = None, status: int = 429) -> httpx.Response:
    name = "TooManyRequests" if status == 429 else "InternalServerError"
    return httpx.Response(status, headers=headers or {}, json=error_body(name, "Slow down."))


async def test_retry_after_seconds_is_honoured() -> None:
    fake = FakeOpenProject().route(STATUSES, throttled({"Retry-After": "7"}), OK)
    sleep = RecordingSleep()
    async with make_client(fake, sleep=sleep) as client:
        statuses = await client.statuses()
    assert [s.id for s in statuses] == [1]
    assert sleep.delays == [7.0]
    assert len(fake.requests_to(STATUSES)) == 2


async def test_retry_after_http_date_is_honoured() -> None:
    when = email.utils.formatdate(NOW + 12, usegmt=True)
    fake = FakeOpenProject().route(STATUSES, throttled({"Retry-After": when}), OK)
    sleep = RecordingSleep()
    async with make_client(fake, sleep=sleep, clock=lambda: NOW) as client:
        await client.statuses()
    assert sleep.delays == [pytest.approx(12.0)]


async def test_ratelimit_reset_epoch_is_used_without_retry_after() -> None:
    # OpenProject's own throttle sends RateLimit-Reset (epoch seconds) and no Retry-After.
    headers = {"RateLimit-Limit": "6", "RateLimit-Remaining": "0", "RateLimit-Reset": "1780000004"}
    fake = FakeOpenProject().route(STATUSES, throttled(headers), OK)
    sleep = RecordingSleep()
    async with make_client(fake, sleep=sleep, clock=lambda: NOW) as client:
        await client.statuses()
    assert sleep.delays == [pytest.approx(4.0)]


async def test_retry_after_wins_over_ratelimit_reset() -> None:
    headers = {"Retry-After": "2", "RateLimit-Reset": "1780000009"}
    fake = FakeOpenProject().route(STATUSES, throttled(headers), OK)
    sleep = RecordingSleep()
    async with make_client(fake, sleep=sleep, clock=lambda: NOW) as client:
        await client.statuses()
    assert sleep.delays == [2.0]


async def test_exponential_backoff_without_hints_is_capped_and_bounded() -> None:
    policy = RetryPolicy(
        max_attempts=6, base_delay=1.0, max_delay=5.0, max_total_wait=100, jitter=0
    )
    fake = FakeOpenProject().route(STATUSES, throttled(status=503))
    sleep = RecordingSleep()
    async with make_client(fake, retry=policy, sleep=sleep) as client:
        with pytest.raises(ServerError) as caught:
            await client.statuses()
    assert caught.value.status == 503
    assert sleep.delays == [1.0, 2.0, 4.0, 5.0, 5.0]
    assert len(fake.requests_to(STATUSES)) == 6


async def test_jitter_only_shortens_the_wait() -> None:
    policy = RetryPolicy(max_attempts=3, base_delay=2.0, max_delay=10.0, jitter=0.5)
    fake = FakeOpenProject().route(STATUSES, throttled(status=503), throttled(status=503), OK)
    sleep = RecordingSleep()
    async with make_client(fake, retry=policy, sleep=sleep, rand=lambda: 1.0) as client:
        await client.statuses()
    assert sleep.delays == [1.0, 2.0]  # 2*(1-0.5), 4*(1-0.5)


async def test_total_wait_budget_stops_retrying() -> None:
    policy = RetryPolicy(
        max_attempts=10, base_delay=4.0, max_delay=4.0, max_total_wait=10, jitter=0
    )
    fake = FakeOpenProject().route(STATUSES, throttled(status=503))
    sleep = RecordingSleep()
    async with make_client(fake, retry=policy, sleep=sleep) as client:
        with pytest.raises(ServerError):
            await client.statuses()
    assert sleep.delays == [4.0, 4.0]
    assert sum(sleep.delays) <= 10


async def test_server_asking_for_too_long_a_wait_fails_with_retry_after() -> None:
    policy = RetryPolicy(max_delay=30.0)
    fake = FakeOpenProject().route(STATUSES, throttled({"Retry-After": "3600"}))
    sleep = RecordingSleep()
    async with make_client(fake, retry=policy, sleep=sleep) as client:
        with pytest.raises(RateLimitedError) as caught:
            await client.statuses()
    assert caught.value.retry_after == 3600.0
    assert caught.value.status == 429
    assert caught.value.error_identifier is not None
    assert caught.value.error_identifier.endswith(":TooManyRequests")
    assert sleep.delays == []


async def test_rate_limit_exhausted_raises_rate_limited_error() -> None:
    policy = RetryPolicy(max_attempts=3, jitter=0)
    fake = FakeOpenProject().route(STATUSES, throttled({"Retry-After": "1"}))
    sleep = RecordingSleep()
    async with make_client(fake, retry=policy, sleep=sleep) as client:
        with pytest.raises(RateLimitedError) as caught:
            await client.statuses()
    assert caught.value.retry_after == 1.0
    assert sleep.delays == [1.0, 1.0]
    assert len(fake.requests_to(STATUSES)) == 3


@pytest.mark.parametrize(
    ("status", "name", "error_type"),
    [
        (401, "Unauthenticated", AuthenticationError),
        (403, "MissingPermission", PermissionDeniedError),
        (404, "NotFound", NotFoundError),
    ],
)
async def test_client_errors_are_never_retried(
    status: int, name: str, error_type: type[Exception]
) -> None:
    answer = httpx.Response(status, headers={"Retry-After": "1"}, json=error_body(name))
    fake = FakeOpenProject().route(STATUSES, answer, OK)
    sleep = RecordingSleep()
    async with make_client(fake, sleep=sleep) as client:
        with pytest.raises(error_type):
            await client.statuses()
        assert client.request_count == 2  # users/me + one attempt
    assert len(fake.requests_to(STATUSES)) == 1
    assert sleep.delays == []


async def test_server_error_500_is_not_retried() -> None:
    fake = FakeOpenProject().route(STATUSES, throttled(status=500), OK)
    async with make_client(fake) as client:
        with pytest.raises(ServerError) as caught:
            await client.statuses()
    assert caught.value.status == 500
    assert len(fake.requests_to(STATUSES)) == 1


async def test_network_errors_are_retried_then_succeed() -> None:
    failures = [httpx.ConnectError("connection refused"), httpx.ReadTimeout("timed out")]

    def flaky(request: httpx.Request) -> httpx.Response:
        if failures:
            raise failures.pop(0)
        return httpx.Response(200, json=OK)

    fake = FakeOpenProject().route(STATUSES, flaky)
    sleep = RecordingSleep()
    policy = RetryPolicy(max_attempts=3, base_delay=0.5, jitter=0)
    async with make_client(fake, retry=policy, sleep=sleep) as client:
        statuses = await client.statuses()
        assert client.request_count == 4  # users/me + 3 attempts
        assert client.requests_by_path[STATUSES] == 3
    assert [s.name for s in statuses] == ["New"]
    assert sleep.delays == [0.5, 1.0]


async def test_network_errors_exhausted_raise_upstream_unavailable() -> None:
    def down(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("connection refused")

    fake = FakeOpenProject().route(STATUSES, down)
    sleep = RecordingSleep()
    policy = RetryPolicy(max_attempts=4, base_delay=0.1, jitter=0)
    async with make_client(fake, retry=policy, sleep=sleep) as client:
        with pytest.raises(UpstreamUnavailableError) as caught:
            await client.statuses()
    assert "4 attempt" in str(caught.value)
    assert isinstance(caught.value.__cause__, httpx.ConnectError)
    assert len(fake.requests_to(STATUSES)) == 4
    assert len(sleep.delays) == 3


async def test_gateway_errors_from_a_proxy_are_retried() -> None:
    gateway = httpx.Response(502, text="<html>Bad Gateway</html>")
    fake = FakeOpenProject().route(STATUSES, gateway, OK)
    sleep = RecordingSleep()
    async with make_client(fake, sleep=sleep) as client:
        await client.statuses()
    assert len(sleep.delays) == 1


def test_server_requested_delay_parsing() -> None:
    assert server_requested_delay({"Retry-After": "3"}, NOW) == 3.0
    assert server_requested_delay({"retry-after": " 0 "}, NOW) == 0.0
    assert server_requested_delay({"Retry-After": "-5"}, NOW) == 0.0
    assert server_requested_delay({"Retry-After": "soon"}, NOW) is None
    assert server_requested_delay({"Retry-After": "nan"}, NOW) is None
    assert server_requested_delay({"RateLimit-Reset": "1779999990"}, NOW) == 0.0  # past
    assert server_requested_delay({"RateLimit-Reset": "15"}, NOW) == 15.0  # delta form
    assert server_requested_delay({"RateLimit-Reset": "x"}, NOW) is None
    assert server_requested_delay({}, NOW) is None


@pytest.mark.parametrize(
    "options",
    [
        {"max_attempts": 0},
        {"base_delay": -1.0},
        {"jitter": 1.5},
    ],
)
def test_invalid_retry_policy_is_refused(options: dict[str, float]) -> None:
    from opindex.errors import ConfigError

    with pytest.raises(ConfigError):
        RetryPolicy(**options)  # type: ignore[arg-type]


class FakeMonotonic:
    """A monotonic clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


async def test_an_outage_is_remembered_so_the_next_requests_fail_at_once() -> None:
    reachable = False

    def server(request: httpx.Request) -> httpx.Response:
        if not reachable:
            raise httpx.ConnectError("connection refused")
        return httpx.Response(200, json=OK)

    fake = FakeOpenProject().route(STATUSES, server)
    clock = FakeMonotonic()
    sleep = RecordingSleep()
    policy = RetryPolicy(max_attempts=3, base_delay=0.5, jitter=0)
    outage = OutageMemory(30.0, monotonic=clock)
    async with make_client(fake, retry=policy, sleep=sleep, outage=outage) as client:
        with pytest.raises(UpstreamUnavailableError, match="could not be reached"):
            await client.statuses()
        assert len(fake.requests_to(STATUSES)) == 3  # the first failure spent the budget
        assert sleep.delays == [0.5, 1.0]

        clock.now += 10
        reachable = True  # not asked: the outage is remembered
        with pytest.raises(UpstreamUnavailableError, match=r"unreachable 10 s ago \(ConnectErr"):
            await client.statuses()
        assert len(fake.requests_to(STATUSES)) == 3  # no request sent
        assert sleep.delays == [0.5, 1.0]  # and no waiting

        clock.now += 25  # past the cool-down: asked again, and it answers
        assert [status.id for status in await client.statuses()] == [1]
        assert len(fake.requests_to(STATUSES)) == 4


async def test_gateway_errors_start_an_outage_but_other_errors_do_not() -> None:
    fake = FakeOpenProject().route(STATUSES, throttled(status=502))
    outage = OutageMemory(30.0, monotonic=FakeMonotonic())
    async with make_client(fake, retry=RetryPolicy(max_attempts=1), outage=outage) as client:
        with pytest.raises(ServerError):
            await client.statuses()
        with pytest.raises(UpstreamUnavailableError, match=r"\(HTTP 502\)"):
            await client.statuses()

    fake = FakeOpenProject().route(STATUSES, throttled(status=500), OK)
    outage = OutageMemory(30.0, monotonic=FakeMonotonic())
    async with make_client(fake, retry=RetryPolicy(max_attempts=1), outage=outage) as client:
        with pytest.raises(ServerError):
            await client.statuses()
        assert [status.id for status in await client.statuses()] == [1]  # asked again
