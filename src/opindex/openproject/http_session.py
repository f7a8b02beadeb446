"""One HTTP session to OpenProject: auth header, retries with backoff, typed errors, counting."""

from __future__ import annotations

import asyncio
import json
import logging
import random
from collections import Counter
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import IO, Any
from urllib.parse import urlsplit

import httpx

from opindex.errors import ConfigError, OpenProjectError, UpstreamUnavailableError
from opindex.openproject.connect_errors import connect_failure
from opindex.openproject.credentials import ApiKeyCredential
from opindex.openproject.error_mapping import error_from_response
from opindex.openproject.outage import OutageMemory
from opindex.openproject.retry import (
    RETRYABLE_STATUSES,
    RetryPolicy,
    current_time,
    server_requested_delay,
)

logger = logging.getLogger("opindex.openproject")

JsonObject = dict[str, Any]
Sleep = Callable[[float], Awaitable[None]]

# Transient transport failures worth another attempt; anything else (bad URL scheme,
# local protocol misuse) fails at once.
_RETRYABLE_TRANSPORT_ERRORS: tuple[type[httpx.TransportError], ...] = (
    httpx.TimeoutException,
    httpx.NetworkError,
    httpx.RemoteProtocolError,
)

_ACCEPT = "application/hal+json, application/json;q=0.9"


class ApiSession:
    """Sends GET requests to one OpenProject base URL with one credential.

    Every request attempt (retries included) is counted in ``request_count`` and, per
    route (numeric path segments shown as ``{id}``), in ``requests_by_path``. The
    transport is injectable: it is the seam for tests.

    With an ``outage`` memory, a request that fails for good because OpenProject is
    unreachable (network, timeout, 502/503/504 after the retries) makes the following
    requests fail at once, without a network round trip, until its cool-down ends.
    """

    def __init__(
        self,
        base_url: str,
        credential: ApiKeyCredential,
        *,
        transport: httpx.AsyncBaseTransport | None = None,
        timeout: float = 30.0,
        retry: RetryPolicy | None = None,
        sleep: Sleep | None = None,
        clock: Callable[[], float] = current_time,
        rand: Callable[[], float] = random.random,
        user_agent: str = "opindex",
        outage: OutageMemory | None = None,
    ) -> None:
        self.base_url = normalize_base_url(base_url)
        self._outage = outage
        self._credential = credential
        self.retry = retry or RetryPolicy()
        self._sleep: Sleep = sleep or asyncio.sleep
        self._clock = clock
        self._rand = rand
        self.request_count = 0
        self.requests_by_path: Counter[str] = Counter()
        self.server_date: datetime | None = None
        """The ``Date`` header of the latest successful response (the server's clock)."""
        self._client = httpx.AsyncClient(
            base_url=self.base_url,
            transport=transport,
            timeout=timeout,
            headers={"Accept": _ACCEPT, "User-Agent": user_agent},
            follow_redirects=False,
        )

    def __repr__(self) -> str:
        return f"ApiSession(base_url={self.base_url!r}, credential={self._credential!r})"

    async def aclose(self) -> None:
        """Close the underlying connection pool."""
        await self._client.aclose()

    async def get_json(self, path: str, params: Mapping[str, str] | None = None) -> JsonObject:
        """GET *path* (relative to the base URL) and return the JSON object it answered.

        Retries 429/502/503/504 and transient network errors within the retry policy;
        raises the typed ``OpenProjectError`` subclass otherwise.
        """
        if self._outage is None:
            return await self._get_json(path, params)
        self._outage.check(self.base_url)
        try:
            data = await self._get_json(path, params)
        except UpstreamUnavailableError as exc:
            cause = exc.__cause__
            self._outage.failed(type(cause).__name__ if cause is not None else "network error")
            raise
        except OpenProjectError as exc:
            if exc.status in (502, 503, 504):
                self._outage.failed(f"HTTP {exc.status}")
            raise
        self._outage.recovered()
        return data

    async def _get_json(self, path: str, params: Mapping[str, str] | None) -> JsonObject:
        waited = 0.0
        attempt = 0
        headers = {"Authorization": self._credential.authorization_header()}
        while True:
            attempt += 1
            self.request_count += 1
            self.requests_by_path[route_of(path)] += 1
            try:
                response = await self._client.get(path, params=params, headers=headers)
            except _RETRYABLE_TRANSPORT_ERRORS as exc:
                delay = self.retry.backoff(attempt, self._rand)
                if self._may_wait(attempt, waited, delay):
                    self._log_retry(path, type(exc).__name__, attempt, delay)
                    await self._sleep(delay)
                    waited += delay
                    continue
                raise UpstreamUnavailableError(
                    f"OpenProject at {self.base_url} could not be reached for GET {path} "
                    f"after {attempt} attempt(s): {type(exc).__name__}: "
                    f"{connect_failure(exc, self.base_url + path)}"
                ) from exc
            except httpx.HTTPError as exc:
                raise UpstreamUnavailableError(
                    f"GET {path} to {self.base_url} failed: {type(exc).__name__}: "
                    f"{connect_failure(exc, self.base_url + path)}"
                ) from exc

            status = response.status_code
            if 300 <= status < 400:
                # Redirects are not followed: the credential must not travel elsewhere.
                target = urlsplit(response.headers.get("location", ""))
                raise OpenProjectError(
                    f"GET {path} was redirected ({status}) to "
                    f"{target.scheme}://{target.hostname}{target.path}; "
                    "check the OpenProject URL (scheme, host, sub-path)",
                    status=status,
                )
            if status < 400:
                self.server_date = server_date(response.headers) or self.server_date
                return self._json_object(response, path)

            body = _json_or_none(response)
            if status in RETRYABLE_STATUSES:
                hinted = server_requested_delay(response.headers, self._clock())
                delay = hinted if hinted is not None else self.retry.backoff(attempt, self._rand)
                if self._may_wait(attempt, waited, delay):
                    self._log_retry(path, f"HTTP {status}", attempt, delay)
                    await self._sleep(delay)
                    waited += delay
                    continue
                raise error_from_response(status, body, method="GET", path=path, retry_after=hinted)
            raise error_from_response(status, body, method="GET", path=path)

    async def download(self, path: str, sink: IO[bytes], max_bytes: int) -> Download:
        """Stream the file at *path* into *sink*, at most *max_bytes* of it.

        A file announced (``Content-Length``) or found larger than *max_bytes* stops the
        transfer: ``Download.complete`` is False and the bytes written are a prefix. A
        redirect (OpenProject may hand the file out from remote storage through a signed
        URL) is followed once, without the credential, which must not leave the server.
        Errors are the typed ``OpenProjectError``s of ``get_json``; no retries (the next
        sync tries again).
        """
        headers = {"Authorization": self._credential.authorization_header()}
        self.request_count += 1
        self.requests_by_path[route_of(path)] += 1
        try:
            async with self._client.stream("GET", path, headers=headers) as response:
                if 300 <= response.status_code < 400 and "location" in response.headers:
                    target = response.headers["location"]
                    async with (
                        httpx.AsyncClient(timeout=self._client.timeout) as outside,
                        outside.stream("GET", target) as redirected,
                    ):
                        return await _stream(redirected, path, sink, max_bytes)
                return await _stream(response, path, sink, max_bytes)
        except httpx.HTTPError as exc:
            raise UpstreamUnavailableError(
                f"GET {path} to {self.base_url} failed: {type(exc).__name__}: "
                f"{connect_failure(exc, self.base_url + path)}"
            ) from exc

    def _may_wait(self, attempt: int, waited: float, delay: float) -> bool:
        policy = self.retry
        return (
            attempt < policy.max_attempts
            and delay <= policy.max_delay
            and waited + delay <= policy.max_total_wait
        )

    def _json_object(self, response: httpx.Response, path: str) -> JsonObject:
        try:
            data = response.json()
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            content_type = response.headers.get("content-type", "unknown")
            raise OpenProjectError(
                f"GET {path} answered {response.status_code} with a non-JSON body "
                f"({content_type}); is {self.base_url} an OpenProject instance?",
                status=response.status_code,
            ) from exc
        if not isinstance(data, dict):
            raise OpenProjectError(
                f"GET {path} answered a JSON {type(data).__name__}, expected an object",
                status=response.status_code,
            )
        return data

    def _log_retry(self, path: str, reason: str, attempt: int, delay: float) -> None:
        logger.warning(
            "OpenProject GET %s failed (%s) on attempt %d/%d; retrying in %.2fs",
            path,
            reason,
            attempt,
            self.retry.max_attempts,
            delay,
        )


@dataclass(frozen=True, slots=True)
class Download:
    """What a download wrote: how many bytes, whether that is the whole file, and the
    content type the server named."""

    size: int
    complete: bool
    content_type: str | None


async def _stream(response: httpx.Response, path: str, sink: IO[bytes], max_bytes: int) -> Download:
    """Copy *response*'s body into *sink*, stopping past *max_bytes*."""
    if response.status_code >= 400:
        await response.aread()
        raise error_from_response(
            response.status_code, _json_or_none(response), method="GET", path=path
        )
    content_type = response.headers.get("content-type")
    announced = response.headers.get("content-length")
    if announced is not None and announced.isdigit() and int(announced) > max_bytes:
        return Download(0, complete=False, content_type=content_type)
    written = 0
    async for chunk in response.aiter_bytes():
        if written + len(chunk) > max_bytes:
            return Download(written, complete=False, content_type=content_type)
        sink.write(chunk)
        written += len(chunk)
    return Download(written, complete=True, content_type=content_type)


def normalize_base_url(base_url: str) -> str:
    """Validate the instance URL and strip a trailing slash or ``/api/v3`` suffix."""
    parts = urlsplit(base_url.strip())
    if "@" in parts.netloc:
        raise ConfigError("the OpenProject URL must not contain credentials; use the API key")
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConfigError(f"OpenProject URL must be http(s)://host[/path], got {base_url!r}")
    if parts.query or parts.fragment:
        raise ConfigError("the OpenProject URL must not contain a query or fragment")
    path = parts.path.rstrip("/")
    if path.endswith("/api/v3"):
        path = path[: -len("/api/v3")]
    netloc = parts.netloc
    return f"{parts.scheme}://{netloc}{path}"


def server_date(headers: httpx.Headers) -> datetime | None:
    """The response's ``Date`` header as an aware UTC datetime; None if absent or garbled."""
    raw = headers.get("date")
    if not raw:
        return None
    try:
        moment = parsedate_to_datetime(raw)
    except (TypeError, ValueError):
        return None
    if moment.tzinfo is None:
        return None
    return moment.astimezone(UTC)


def route_of(path: str) -> str:
    """``/api/v3/work_packages/42/activities`` → ``/api/v3/work_packages/{id}/activities``."""
    return "/".join("{id}" if part.isdigit() else part for part in path.split("/"))


def _json_or_none(response: httpx.Response) -> object:
    try:
        return response.json()
    except (json.JSONDecodeError, UnicodeDecodeError):
        return None
