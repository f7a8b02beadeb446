"""Every CLI command whose reader goes away (`opindex status | head -1`) stops quietly:
exit 141, nothing on stderr; a sync of several tenants still syncs them all."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from tests.reliability.conftest import run_outcomes
from tests.support.config_files import write_config
from tests.support.processes import opindex_argv, subprocess_env
from tests.support.sandbox import MEMBER_KEY, OUTSIDER_KEY, running_sandbox

from opindex import cli
from opindex.config import load_config
from opindex.sync import sync_tenant


@pytest.fixture(scope="module")
def config_path(corpus: dict[str, Any], tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    directory = tmp_path_factory.mktemp("broken-pipe")
    with running_sandbox(corpus, wiki_list=True) as sandbox:
        path = write_config(
            directory, [("acme", sandbox, MEMBER_KEY), ("beta", sandbox, OUTSIDER_KEY)]
        )
        config = load_config(path)
        for tenant in config.tenants:
            asyncio.run(sync_tenant(tenant, config.data_dir))
        yield path


def run_into_closed_pipe(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """Run the CLI with stdout a pipe whose reader is already gone (every write: EPIPE)."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        return subprocess.run(
            opindex_argv(*args),
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            timeout=timeout,
            env=subprocess_env(),
        )
    finally:
        os.close(write_end)


def test_status_search_and_help_stop_quietly(config_path: Path) -> None:
    config = str(config_path)
    for args in (
        ("status", "--config", config),
        ("status", "--config", config, "--json"),
        ("status", "--config", config, "--verify"),
        ("search", "--config", config, "--tenant", "acme", "--kind", "work_packages", "x"),
    ):
        result = run_into_closed_pipe(*args)
        assert result.returncode == cli.EXIT_BROKEN_PIPE, (args, result.stderr)
        assert result.stderr == "", (args, result.stderr)
    for args in (("--help",), ("status", "--help")):  # argparse ignores the failed write
        result = run_into_closed_pipe(*args)
        assert (result.returncode, result.stderr) == (cli.EXIT_OK, ""), args


def test_a_sync_of_several_tenants_finishes_every_tenant(config_path: Path) -> None:
    data_dir = load_config(config_path).data_dir
    before = {tenant: len(run_outcomes(data_dir, tenant)) for tenant in ("acme", "beta")}
    result = run_into_closed_pipe("sync", "--config", str(config_path))
    assert result.returncode == cli.EXIT_OK, result.stderr
    assert result.stderr == ""
    for tenant in ("acme", "beta"):
        outcomes = run_outcomes(data_dir, tenant)
        assert len(outcomes) == before[tenant] + 1 and outcomes[-1] == "succeeded", tenant


def test_a_rebuild_stops_quietly_after_its_work(config_path: Path) -> None:
    data_dir = load_config(config_path).data_dir
    result = run_into_closed_pipe("rebuild", "--config", str(config_path), "--tenant", "acme")
    assert result.returncode == cli.EXIT_BROKEN_PIPE, result.stderr
    assert result.stderr == ""
    assert run_outcomes(data_dir, "acme")[-1] == "succeeded"  # the rebuild itself completed


def test_the_sandbox_server_stops_quietly(corpus: dict[str, Any], tmp_path: Path) -> None:
    corpus_file = tmp_path / "corpus.json"
    corpus_file.write_text(json.dumps(corpus), encoding="utf-8")
    result = run_into_closed_pipe("sandbox", "--corpus", str(corpus_file), "--port", "0")
    assert result.returncode == cli.EXIT_BROKEN_PIPE, result.stderr
    assert "Traceback" not in result.stderr


def test_the_http_server_keeps_serving_when_its_announcement_is_not_read(
    config_path: Path,
) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    read_end, write_end = os.pipe()
    os.close(read_end)
    argv = opindex_argv(
        "serve", "--config", str(config_path), "--transport", "http", "--port", str(port),
        "--no-sync",
    )  # fmt: skip
    server = subprocess.Popen(
        argv, stdout=write_end, stderr=subprocess.PIPE, text=True, env=subprocess_env()
    )
    os.close(write_end)
    try:
        deadline = time.monotonic() + 60
        while True:  # polls a real server coming up; no clock to inject here
            try:
                answer = httpx.get(f"http://127.0.0.1:{port}/mcp", timeout=2)
                break
            except httpx.TransportError:
                assert server.poll() is None, server.stderr.read() if server.stderr else ""
                assert time.monotonic() < deadline
                time.sleep(0.2)
        assert answer.status_code < 500
    finally:
        server.send_signal(signal.SIGTERM)
        _, stderr = server.communicate(timeout=60)
    assert server.returncode == cli.EXIT_OK, stderr
    assert "Traceback" not in stderr and "BrokenPipe" not in stderr


def test_the_demo_stops_quietly(tmp_path: Path) -> None:
    result = run_into_closed_pipe("demo", "--data-dir", str(tmp_path / "demo"))
    assert result.returncode == cli.EXIT_BROKEN_PIPE, result.stderr
    assert "Traceback" not in result.stderr
