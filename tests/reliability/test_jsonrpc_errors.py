"""Malformed JSON-RPC over stdio and HTTP: a Parse error or Invalid Request per the spec,
never silence, never a 202; the process keeps serving the same session."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import httpx
import mcp_types as types
import pytest
from tests.support.config_files import write_config
from tests.support.processes import http_server_process, opindex_argv, subprocess_env

from opindex.mcp.jsonrpc_guard import rejection

KEY = "0123456789abcdef0123456789abcdef01234567"
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "probe", "version": "1"},
    },
}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}

NOT_JSON = ["this is not json", "{broken", '{"jsonrpc":"2.0","id":Infinity,"method":"ping"}',
            '{"jsonrpc":"2.0","id":NaN,"method":"ping"}', '{"a":' * 100_000]  # fmt: skip
INVALID = [
    '{"jsonrpc":"2.0","id":{},"method":"ping"}',
    '{"jsonrpc":"2.0","id":1.5,"method":"ping"}',
    '{"jsonrpc":"2.0","id":true,"method":"ping"}',
    '{"jsonrpc":"2.0","id":null,"method":"ping"}',
    '{"jsonrpc":"2.0","id":[1],"method":"ping"}',
    '{"jsonrpc":"2.0","id":1e400,"method":"ping"}',
    '{"jsonrpc":"2.0","id":3,"method":42}',
    '{"hello":"world"}',
    "[1,2]",
    '"ping"',
    "17",
]


@pytest.fixture
def config_path(tmp_path: Path) -> Path:
    return write_config(tmp_path, [("acme", "http://127.0.0.1:9", KEY)])


@pytest.mark.parametrize("line", NOT_JSON)
def test_text_that_is_not_json_is_a_parse_error(line: str) -> None:
    error = rejection(line)
    assert error is not None and error.id is None and error.error.code == types.PARSE_ERROR


@pytest.mark.parametrize("line", INVALID)
def test_json_that_is_no_request_is_an_invalid_request(line: str) -> None:
    error = rejection(line)
    assert error is not None and error.id is None
    assert error.error.code == types.INVALID_REQUEST


@pytest.mark.parametrize(
    "message", [INITIALIZE, INITIALIZED, {"jsonrpc": "2.0", "id": "a-1", "method": "ping"}]
)
def test_good_messages_pass(message: dict[str, Any]) -> None:
    assert rejection(json.dumps(message)) is None


def test_stdio_answers_every_bad_line_and_keeps_the_session(config_path: Path) -> None:
    bad = NOT_JSON[:4] + INVALID
    lines = [json.dumps(INITIALIZE), json.dumps(INITIALIZED), *bad]
    lines += [
        json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
        json.dumps({"jsonrpc": "2.0", "id": 3, "method": "ping"}),
    ]
    server = subprocess.Popen(
        opindex_argv("serve", "--config", str(config_path), "--no-sync"),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=subprocess_env(),
    )
    assert server.stdin is not None and server.stdout is not None
    try:
        server.stdin.write("\n".join(lines) + "\n")
        server.stdin.flush()
        answers = [json.loads(server.stdout.readline()) for _ in range(len(bad) + 3)]
    finally:
        server.stdin.close()  # end of the session
        server.wait(timeout=60)
    stderr = server.stderr.read() if server.stderr is not None else ""
    assert server.returncode == 0, stderr
    by_id = {answer["id"]: answer for answer in answers if answer["id"] is not None}
    assert "result" in by_id[1] and len(by_id[2]["result"]["tools"]) >= 8
    assert by_id[3] == {"jsonrpc": "2.0", "id": 3, "result": {}}
    errors = [answer for answer in answers if answer["id"] is None]
    codes = [answer["error"]["code"] for answer in errors]
    assert codes == [types.PARSE_ERROR] * 4 + [types.INVALID_REQUEST] * len(INVALID)
    assert all(answer["jsonrpc"] == "2.0" for answer in errors)
    assert "Traceback" not in stderr


def test_http_answers_bad_bodies_with_400_and_keeps_the_session(config_path: Path) -> None:
    with http_server_process(config_path, "--no-sync") as url:
        headers = {
            "Accept": "application/json, text/event-stream",
            "Content-Type": "application/json",
            "Authorization": f"Bearer {KEY}",
        }
        with httpx.Client(headers=headers, timeout=30) as http:
            opened = http.post(url, content=json.dumps(INITIALIZE))
            assert opened.status_code == 200
            http.headers["mcp-session-id"] = opened.headers["mcp-session-id"]
            http.headers["mcp-protocol-version"] = "2025-06-18"
            assert http.post(url, content=json.dumps(INITIALIZED)).status_code == 202
            for body, code in [(b, types.PARSE_ERROR) for b in NOT_JSON[:4]] + [
                (b, types.INVALID_REQUEST) for b in INVALID
            ]:
                answer = http.post(url, content=body)
                assert answer.status_code == 400, (body, answer.status_code, answer.text)
                error = answer.json()
                assert error["id"] is None and error["error"]["code"] == code, body
            ping = http.post(url, content=json.dumps({"jsonrpc": "2.0", "id": 9, "method": "ping"}))
            assert ping.status_code == 200 and '"id":9' in ping.text
