"""Many small HTTP/1.1 requests over a few kept-alive raw connections, for flood tests (a
client library would spend more time per request than the server under test)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping

import httpx

Reply = tuple[int, dict[str, str], bytes]
"""Status, headers (lower-case names), body."""


def post_request(url: str, headers: Mapping[str, str], body: bytes) -> bytes:
    """The bytes of one ``POST url`` with *headers* and *body* (kept alive)."""
    endpoint = httpx.URL(url)
    return (
        f"POST {endpoint.raw_path.decode('ascii')} HTTP/1.1\r\n"
        f"Host: {endpoint.host}:{endpoint.port}\r\n"
        + "".join(f"{name}: {value}\r\n" for name, value in headers.items())
        + f"Content-Length: {len(body)}\r\n\r\n"
    ).encode("latin-1") + body


async def exchange(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, request: bytes
) -> Reply:
    """Send one request on a kept-alive connection and read its whole reply."""
    writer.write(request)
    await writer.drain()
    head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
    status = int(head[0].split()[1])
    headers = {}
    for line in head[1:]:
        if line:
            name, value = line.split(":", 1)
            headers[name.strip().lower()] = value.strip()
    if "content-length" in headers:
        return status, headers, await reader.readexactly(int(headers["content-length"]))
    body = b""
    while size := int((await reader.readline()).strip(), 16):  # chunked
        body += await reader.readexactly(size)
        await reader.readline()
    await reader.readline()
    return status, headers, body


async def flood(
    url: str, request: bytes, count: int, connections: int, on_reply: Callable[[Reply], None]
) -> None:
    """Send *request* *count* times over *connections* connections; each reply to
    *on_reply*."""
    endpoint = httpx.URL(url)
    remaining = [count]

    async def connection() -> None:
        reader, writer = await asyncio.open_connection(endpoint.host, endpoint.port)
        try:
            while remaining[0] > 0:
                remaining[0] -= 1
                on_reply(await exchange(reader, writer, request))
        finally:
            writer.close()

    await asyncio.gather(*(connection() for _ in range(connections)))
