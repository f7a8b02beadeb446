"""The command's contract: one listening line, a real port, clean exits on SIGINT/SIGTERM."""

from __future__ import annotations

import contextlib
import re
import signal
import socket
import subprocess
import sys
import threading
from pathlib import Path

import httpx
import pytest
from tests.support.processes import wait_until
from tests.support.sandbox import ADMIN_KEY, CorpusBuilder, running_sandbox

from opindex.sandbox import sample_corpus_path


@pytest.mark.parametrize("full_cli", [True, False], ids=["opindex sandbox", "opindex.sandbox"])
def test_prints_one_listening_line_with_the_real_port(full_cli: bool) -> None:
    with running_sandbox(CorpusBuilder().build(), full_cli=full_cli) as sandbox:
        assert re.fullmatch(r"http://127\.0\.0\.1:\d+", sandbox.base_url)
        port = int(sandbox.base_url.rsplit(":", 1)[1])
        assert port > 0
        assert sandbox.get("/api/v3/users/me").status_code == 200
        assert sandbox.terminate() == 0
        assert sandbox.process.stdout is not None
        assert sandbox.process.stdout.read() == ""  # nothing after the listening line


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_stops_cleanly_on_signal_even_with_a_request_hanging(sig: signal.Signals) -> None:
    with running_sandbox(CorpusBuilder().build()) as sandbox:
        sandbox.fault("/api/v3/work_packages", hang=60)
        hanging = threading.Thread(
            target=lambda: _swallow(sandbox.base_url + "/api/v3/work_packages"), daemon=True
        )
        hanging.start()
        wait_until(lambda: sandbox.stats()["requests"] > 0, "the request to reach the server")
        sandbox.process.send_signal(sig)
        assert sandbox.process.wait(timeout=30) == 0
        hanging.join(timeout=30)


def _swallow(url: str) -> None:
    with contextlib.suppress(httpx.HTTPError):  # the server goes away mid-request
        httpx.get(url, auth=("apikey", ADMIN_KEY), timeout=120)


def test_a_taken_port_is_a_usage_error(tmp_path: Path) -> None:
    with socket.socket() as blocker:
        blocker.bind(("127.0.0.1", 0))
        blocker.listen(1)
        port = blocker.getsockname()[1]
        corpus = str(sample_corpus_path())
        result = subprocess.run(
            [sys.executable, "-m", "opindex", "sandbox", "--corpus", corpus, "--port", str(port)],
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert result.returncode == 2
    assert f"cannot listen on 127.0.0.1:{port}" in result.stderr


def test_serves_the_shipped_sample_corpus_with_every_option() -> None:
    with running_sandbox(
        sample_corpus_path(),
        latency_ms=1500,
        page_size_max=50,
        wiki_list=True,
        meetings_api="17.4",
    ) as sandbox:
        # The added latency outlasts a short client timeout.
        with (
            sandbox.client("key-admin", timeout=0.2) as impatient,
            pytest.raises(httpx.ReadTimeout),
        ):
            impatient.get("/api/v3/users/me")
        body = sandbox.get("/api/v3/work_packages", "key-admin", {"pageSize": "500"}).json()
        assert body["pageSize"] == 50
        assert sandbox.get("/api/v3/wiki_pages", "key-admin").json()["total"] > 30
