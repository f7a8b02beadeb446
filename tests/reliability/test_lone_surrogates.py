"""Text that is no Unicode (a lone surrogate escaped in JSON, bytes that are not UTF-8) gets a
JSON-RPC Parse error over stdio as over HTTP, and the session goes on; before, stdio
answered nothing and the client waited until it timed out."""

from __future__ import annotations

import json
import select
import subprocess
import time
from pathlib import Path

import httpx
import mcp_types as types
import pytest
from tests.support.config_files import write_config
from tests.support.mcp_clients import initialize_request
from tests.support.processes import http_server_process, opindex_argv, subprocess_env

from opindex.mcp.jsonrpc_guard import rejection

KEY = "0123456789abcdef0123456789abcdef01234567"
STARTUP_SECONDS = 240.0
ANSWER_SECONDS = 60.0


def _search(query: bytes) -> bytes:
    return (
        b'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":'
        b'{"name":"openproject_search_work_packages","arguments":{"query":"' + query + b'"}}}'
    )


NOT_UNICODE = [
    _search(b"\\ud800"),  # an escaped lone surrogate
    b'{"jsonrpc":"2.0","id":3,"method":"ping","params":{"\\udfff":1}}',  # in a key
    _search(b"caf\xff"),  # a byte that is not UTF-8
]


@pytest.fixture
def config_path(tmp_path: Path) -> Path:
    return write_config(tmp_path, [("acme", "http://127.0.0.1:9", KEY)])


@pytest.mark.parametrize("line", [line.decode("utf-8", "surrogateescape") for line in NOT_UNICODE])
def test_text_that_is_no_unicode_is_a_parse_error(line: str) -> None:
    error = rejection(line)
    assert error is not None and error.error.code == types.PARSE_ERROR


def _read_line(stdout: object, deadline: float) -> bytes:
    """One line of the server's stdout, or fail once *deadline* (monotonic) passed."""
    assert hasattr(stdout, "fileno") and hasattr(stdout, "readline")
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            raise AssertionError("the server answered nothing")
        ready, _, _ = select.select([stdout], [], [], left)
        if ready:
            line: bytes = stdout.readline()
            return line


def test_stdio_answers_text_that_is_no_unicode_and_goes_on(config_path: Path) -> None:
    server = subprocess.Popen(
        opindex_argv("serve", "--config", str(config_path), "--no-sync"),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=subprocess_env(),
    )
    assert server.stdin is not None and server.stdout is not None
    try:
        opening = [
            initialize_request("probe"),
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
        ]
        for message in opening:
            server.stdin.write(json.dumps(message).encode() + b"\n")
        for line in NOT_UNICODE:
            server.stdin.write(line + b"\n")
        server.stdin.write(b'{"jsonrpc":"2.0","id":9,"method":"ping"}\n')
        server.stdin.flush()
        # Starting may be slow on a busy machine; the answers after that may not.
        answers = [json.loads(_read_line(server.stdout, time.monotonic() + STARTUP_SECONDS))]
        deadline = time.monotonic() + ANSWER_SECONDS
        answers += [json.loads(_read_line(server.stdout, deadline)) for _ in range(4)]
    finally:
        server.stdin.close()
        server.wait(timeout=60)
    assert server.returncode == 0
    assert answers[0]["id"] == 1 and "result" in answers[0]
    errors = answers[1:4]
    assert [(e["id"], e["error"]["code"]) for e in errors] == [(None, types.PARSE_ERROR)] * 3
    assert answers[4] == {"jsonrpc": "2.0", "id": 9, "result": {}}


def test_http_answers_text_that_is_no_unicode_and_goes_on(config_path: Path) -> None:
    headers = {
        "Accept": "application/json, text/event-stream",
        "Content-Type": "application/json",
        "Authorization": f"Bearer {KEY}",
    }
    with (
        http_server_process(config_path, "--no-sync") as url,
        httpx.Client(headers=headers, timeout=30) as http,
    ):
        opened = http.post(url, content=json.dumps(initialize_request("probe")))
        http.headers["mcp-session-id"] = opened.headers["mcp-session-id"]
        http.headers["mcp-protocol-version"] = "2025-06-18"
        for body in NOT_UNICODE:
            answer = http.post(url, content=body)
            assert answer.status_code == 400, (body, answer.text)
            assert answer.json()["error"]["code"] == types.PARSE_ERROR
        ping = http.post(url, content=b'{"jsonrpc":"2.0","id":9,"method":"ping"}')
        assert ping.status_code == 200 and '"id":9' in ping.text
