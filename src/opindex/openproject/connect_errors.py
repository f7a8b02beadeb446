"""Why OpenProject could not be reached, told apart: DNS, refused, TLS, timeout."""

from __future__ import annotations

import socket
import ssl

import httpx


def _causes(error: BaseException) -> list[BaseException]:
    """*error* and the exceptions it was raised from, outermost first."""
    chain: list[BaseException] = []
    current: BaseException | None = error
    while current is not None and current not in chain:
        chain.append(current)
        current = current.__cause__ or current.__context__
    return chain


def connect_failure(error: BaseException, url: str) -> str:
    """One clause naming what failed for *url* and the setting to check."""
    chain = _causes(error)
    text = " ".join(str(item) for item in chain).lower()
    host = httpx.URL(url).host
    if (
        any(isinstance(item, ssl.SSLError) for item in chain)
        or "certificate" in text
        or ("ssl" in text)
    ):
        return (
            f"the TLS handshake with {host} failed (certificate or protocol); check that "
            "base_url uses the right scheme (https:// or http://) and that the server's "
            "certificate is trusted"
        )
    if any(isinstance(item, socket.gaierror) for item in chain) or any(
        phrase in text
        for phrase in (
            "name or service not known",
            "nodename nor servname",
            "name resolution",
            "getaddrinfo",
            "no address associated",
        )
    ):
        return f"the host name {host!r} could not be resolved (DNS); check the host in base_url"
    if any(isinstance(item, ConnectionRefusedError) for item in chain) or "refused" in text:
        return (
            f"{host} refused the connection; check the port in base_url and that OpenProject "
            "is running"
        )
    if any(isinstance(item, httpx.TimeoutException | TimeoutError) for item in chain):
        return f"{host} did not answer in time; check base_url and the network"
    return f"{type(error).__name__}; check base_url and the network"
