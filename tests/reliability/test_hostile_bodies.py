"""Huge request bodies against a real ``opindex serve --transport http``: each is read up to
its limit and no further (chunked or announced), answered 413, and the server's memory
stays flat (its peak RSS, from /proc, barely moves)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from tests.support.config_files import write_config
from tests.support.processes import http_server_process, wait_until

from opindex.state import StateStore

pytestmark = pytest.mark.slow

KEY = "0123456789abcdef0123456789abcdef01234567"
SECRET = "webhook-secret-for-tests"
HOOK_PATH = "/hooks/acme"
CHUNK = b"\0" * (1 << 20)
SENT_MIB = 200
MAX_GROWTH_KIB = 64 * 1024
"""A body held whole would raise the peak by its 200 MiB (and more, as it is joined)."""


def _peak_rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text(encoding="ascii").splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    raise AssertionError("no VmHWM in /proc status")


def _chunked() -> Iterator[bytes]:
    """200 MiB generated on the fly (httpx sends a generator chunked)."""
    for _ in range(SENT_MIB):
        yield CHUNK


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, int, Path]]:
    directory = tmp_path_factory.mktemp("hostile-bodies")
    config = write_config(
        directory,
        [("acme", "http://127.0.0.1:9", KEY)],
        webhook_path=HOOK_PATH,
        webhook_secret=SECRET,
    )
    pids: list[int] = []
    with http_server_process(config, "--no-sync", pids=pids) as url:
        yield url, pids[0], directory / "data"


def _refused(data_dir: Path) -> int:
    with StateStore.for_tenant(data_dir, "acme") as state:
        counts = state.webhook_counts()
    return counts["refused"].count if "refused" in counts else 0


def test_a_chunked_webhook_body_is_cut_at_the_limit(server: tuple[str, int, Path]) -> None:
    url, pid, data_dir = server
    hook = url.removesuffix("/mcp") + HOOK_PATH
    before, refused = _peak_rss_kib(pid), _refused(data_dir)
    answer = httpx.post(hook, content=_chunked(), timeout=60)
    assert answer.status_code == 413, answer.text
    assert "too large" in answer.json()["error"]
    growth = _peak_rss_kib(pid) - before
    assert growth < MAX_GROWTH_KIB, f"peak RSS grew by {growth} KiB"
    wait_until(lambda: _refused(data_dir) == refused + 1, "the refusal to be counted")
    # The server goes on: a small unsigned delivery is refused for its signature.
    assert httpx.post(hook, content=b"{}", timeout=10).status_code == 401


def test_an_announced_huge_webhook_body_is_refused_unread(server: tuple[str, int, Path]) -> None:
    url, pid, _ = server
    hook = url.removesuffix("/mcp") + HOOK_PATH
    before = _peak_rss_kib(pid)
    answer = httpx.post(hook, content=b"".join(CHUNK for _ in range(8)), timeout=60)
    assert answer.status_code == 413
    assert _peak_rss_kib(pid) - before < MAX_GROWTH_KIB


@pytest.mark.parametrize("keyed", [True, False])
def test_a_chunked_mcp_body_is_cut_at_the_limit(server: tuple[str, int, Path], keyed: bool) -> None:
    url, pid, _ = server
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    if keyed:
        headers["Authorization"] = f"Bearer {KEY}"
    before = _peak_rss_kib(pid)
    answer = httpx.post(url, content=_chunked(), headers=headers, timeout=60)
    assert answer.status_code == 413, answer.text
    assert answer.json()["error"]["code"] == -32600
    growth = _peak_rss_kib(pid) - before
    assert growth < MAX_GROWTH_KIB, f"peak RSS grew by {growth} KiB"
