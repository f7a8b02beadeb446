"""Ten thousand anonymous ``initialize`` requests against a real ``opindex serve --transport
http``: they share a small quota of sessions, the rest get a 503 naming the fix, and a
keyed caller (the real ``mcp`` client, sending its key with every request) is never locked
out; a session ended by its client frees its place in the quota."""

from __future__ import annotations

import asyncio
import json
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from tests.support.config_files import write_config
from tests.support.mcp_clients import bearer, error_text, http_client, initialize_request
from tests.support.processes import http_server_process
from tests.support.raw_http import Reply, flood, post_request

from opindex.mcp.session_admission import ANONYMOUS_SESSIONS

pytestmark = pytest.mark.slow

KEY = "0123456789abcdef0123456789abcdef01234567"
ATTACKS = 10_000
CONNECTIONS = 32
DEADLINE_SECONDS = 150.0
VERSION = initialize_request("x")["params"]["protocolVersion"]
HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


def _rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text(encoding="ascii").splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS in /proc status")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, int]]:
    directory = tmp_path_factory.mktemp("anonymous-sessions")
    config = write_config(directory, [("acme", "http://127.0.0.1:9", KEY)])
    pids: list[int] = []
    with http_server_process(config, "--no-sync", pids=pids) as url:
        yield url, pids[0]


async def _flood(url: str) -> tuple[Counter[int], set[str], list[str]]:
    """ATTACKS anonymous ``initialize`` requests over CONNECTIONS kept-alive connections."""
    request = post_request(url, HEADERS, json.dumps(initialize_request("flood")).encode())
    statuses: Counter[int] = Counter()
    sessions: set[str] = set()
    refusals: list[str] = []

    def note(reply: Reply) -> None:
        status, headers, body = reply
        statuses[status] += 1
        if "mcp-session-id" in headers:
            sessions.add(headers["mcp-session-id"])
        elif status == 503 and len(refusals) < 3:
            refusals.append(json.loads(body)["error"]["message"])

    await flood(url, request, ATTACKS, CONNECTIONS, note)
    return statuses, sessions, refusals


def test_anonymous_sessions_never_lock_keyed_callers_out(server: tuple[str, int]) -> None:
    url, pid = server
    before = _rss_kib(pid)
    started = time.monotonic()
    statuses, sessions, refusals = asyncio.run(
        asyncio.wait_for(_flood(url), timeout=DEADLINE_SECONDS)
    )
    elapsed = time.monotonic() - started
    assert statuses[200] == len(sessions) == ANONYMOUS_SESSIONS, (statuses, elapsed)
    assert statuses[503] == ATTACKS - ANONYMOUS_SESSIONS
    assert "Authorization: Bearer <key>" in refusals[0]
    assert _rss_kib(pid) - before < 64 * 1024, "ten thousand refusals held memory"

    async def keyed_and_anonymous() -> None:
        async with http_client(url, bearer(KEY)) as client:  # the key on every request
            tools = await client.list_tools()
            assert len(tools.tools) >= 8
        async with httpx.AsyncClient(headers=HEADERS, timeout=30) as http:
            body = json.dumps(initialize_request("late"))
            assert (await http.post(url, content=body)).status_code == 503
            # A client ending its anonymous session frees its place ...
            ended = {"mcp-session-id": next(iter(sessions)), "mcp-protocol-version": VERSION}
            assert (await http.delete(url, headers=ended)).status_code == 200
        async with http_client(url) as anonymous:  # ... and the next one hears what to change
            answer = await anonymous.call_tool("openproject_index_status", {})
            assert "X-OpenProject-Api-Key" in error_text(answer)

    asyncio.run(keyed_and_anonymous())
