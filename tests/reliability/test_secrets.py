"""Credentials never appear in logs, errors, status output or exception reprs.

Every log record of failing syncs is captured at DEBUG (all loggers: opindex, httpx,
httpcore, the MCP SDK), with tracebacks; so is the stderr of real ``opindex -v``
processes, including an HTTP MCP server handling requests that carry a caller's key.
The key is searched for as written, inside ``Bearer``, and base64-encoded as HTTP Basic
sends it.
"""

from __future__ import annotations

import asyncio
import base64
import json
import logging
import traceback
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.reliability.conftest import run_opindex
from tests.support.config_files import write_config
from tests.support.corpora import reliability_corpus
from tests.support.mcp_clients import bearer, http_client, result_text
from tests.support.processes import http_server_process
from tests.support.sandbox import SandboxHandle, running_sandbox

from opindex import cli
from opindex.config import load_config
from opindex.errors import OpindexError
from opindex.state import StateStore
from opindex.sync import sync_tenant, tenant_status

TENANT_KEY = "tenant-secret-Zq9xK7wP"
CALLER_KEY = "caller-secret-Hv3mR8tL"
"""Valid keys of the sandbox: the tenant's (user 2), and one no tenant uses (user 3)."""


def leaks(text: str, key: str) -> list[str]:
    """The forms of ``key`` found in ``text``."""
    forms = {
        "raw": key,
        "basic": base64.b64encode(f"apikey:{key}".encode()).decode(),
        "basic without padding": base64.b64encode(f"apikey:{key}".encode()).decode().rstrip("="),
        "url-safe base64": base64.urlsafe_b64encode(key.encode()).decode().rstrip("="),
    }
    return [name for name, form in forms.items() if form in text]


def _corpus() -> dict[str, Any]:
    corpus = reliability_corpus()
    corpus["api_keys"] = {TENANT_KEY: 2, CALLER_KEY: 3}
    return corpus


@pytest.fixture(scope="module")
def sandbox() -> Iterator[SandboxHandle]:
    with running_sandbox(_corpus(), page_size_max=5, wiki_list=True) as handle:
        yield handle


def _everything_about(error: BaseException) -> str:
    return "\n".join(
        [str(error), repr(error), *traceback.format_exception(error), repr(error.__cause__)]
    )


@pytest.mark.parametrize(
    ("fault", "key"),
    [
        ({"path_prefix": "/api/v3/work_packages/4/activities", "status": 500}, TENANT_KEY),
        ({"path_prefix": "/api/v3/work_packages/4/activities", "status": 401}, TENANT_KEY),
        ({"path_prefix": "/api/v3/projects", "status": 429, "retry_after": 3600}, TENANT_KEY),
        ({"path_prefix": "/api/v3/statuses", "status": 404}, TENANT_KEY),
        (None, "wrong-key-Kd82nQ"),  # the server refuses the key itself
    ],
    ids=["500", "401", "429", "404", "refused key"],
)
def test_a_failing_sync_logs_and_raises_without_the_key(
    sandbox: SandboxHandle,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
    fault: dict[str, Any] | None,
    key: str,
) -> None:
    config = load_config(write_config(tmp_path, [("acme", sandbox, key)]))
    tenant = config.tenants[0]
    if fault is not None:
        asyncio.run(sync_tenant(tenant, config.data_dir))  # a good run first
        sandbox.fault(count=1, **fault)
    formatter = logging.Formatter("%(name)s %(levelname)s %(message)s")
    # At the root logger: every library (opindex, httpx, httpcore, asyncio) logs there.
    with caplog.at_level(logging.DEBUG), pytest.raises(OpindexError) as raised:
        asyncio.run(sync_tenant(tenant, config.data_dir, full=True))
    sandbox.clear_faults()

    logged = "\n".join(formatter.format(record) for record in caplog.records)
    assert len(caplog.records) > 5  # DEBUG logging really was captured
    assert leaks(logged, key) == []
    assert leaks(_everything_about(raised.value), key) == []
    with StateStore.for_tenant(config.data_dir, "acme") as state:
        run = state.latest_run()
    assert run is not None and run.error is not None and leaks(run.error, key) == []
    status = tenant_status(tenant, config.data_dir)
    assert leaks(json.dumps(status.to_json()) + repr(status), key) == []
    assert leaks(repr(tenant) + str(tenant) + repr(config), key) == []


def test_cli_processes_at_debug_level_never_print_the_key(
    sandbox: SandboxHandle, tmp_path: Path
) -> None:
    config = write_config(tmp_path, [("acme", sandbox, TENANT_KEY)])
    outputs: list[str] = []
    sandbox.fault("/api/v3/work_packages/4/activities", status=500)
    failed = run_opindex("-v", "sync", "--config", str(config))
    assert failed.returncode == cli.EXIT_UPSTREAM and "DEBUG" in failed.stderr
    outputs += [failed.stdout, failed.stderr]
    for argv in (
        ("-v", "sync", "--config", str(config)),
        ("-v", "status", "--config", str(config)),
        ("-v", "status", "--config", str(config), "--json"),
    ):
        done = run_opindex(*argv)
        assert done.returncode == cli.EXIT_OK, done.stderr[-2000:]
        outputs += [done.stdout, done.stderr]
    sandbox.fault("/api/v3/work_packages", status=401, count=5)
    refused = run_opindex("-v", "rebuild", "--config", str(config), "--tenant", "acme")
    assert refused.returncode == cli.EXIT_AUTH
    outputs += [refused.stdout, refused.stderr]
    sandbox.clear_faults()

    (tmp_path / "wrong").mkdir()
    wrong = write_config(tmp_path / "wrong", [("acme", sandbox, "wrong-key-Kd82nQ")])
    rejected = run_opindex("-v", "sync", "--config", str(wrong))
    assert rejected.returncode == cli.EXIT_AUTH
    assert leaks(rejected.stdout + rejected.stderr, "wrong-key-Kd82nQ") == []

    assert leaks("\n".join(outputs), TENANT_KEY) == []


async def test_http_server_at_debug_level_never_logs_tenant_or_caller_keys(
    sandbox: SandboxHandle, tmp_path: Path
) -> None:
    config = write_config(
        tmp_path,
        [("acme", sandbox, TENANT_KEY)],
        server={"allow_unknown_credentials_live": True},
    )
    loaded = load_config(config)
    await sync_tenant(loaded.tenants[0], loaded.data_dir)
    stderr_path = tmp_path / "serve.log"
    texts: list[str] = []
    with http_server_process(config, "--no-sync", stderr_path=stderr_path, verbose=True) as url:
        for key in (TENANT_KEY, CALLER_KEY, "caller-unknown-Pw7cX2"):
            async with http_client(url, bearer(key)) as client:
                for arguments in ({"query": "certificate"}, {"query": "x", "source": "live"}):
                    result = await client.call_tool("openproject_search_work_packages", arguments)
                    texts.append(result_text(result) + repr(result.structured_content))
                sandbox.fault("/api/v3/work_packages", status=500, count=10)
                failing = await client.call_tool(
                    "openproject_search_work_packages", {"query": "x", "source": "live"}
                )
                sandbox.clear_faults()
                assert failing.is_error
                texts.append(result_text(failing))
                for tool, call_arguments in (
                    ("openproject_get_work_package", {"id": 999}),
                    ("openproject_list_work_packages", {}),
                    ("openproject_index_status", {}),
                ):
                    texts.append(result_text(await client.call_tool(tool, call_arguments)))
    logged = stderr_path.read_text(encoding="utf-8")
    assert "DEBUG" in logged
    for key in (TENANT_KEY, CALLER_KEY, "caller-unknown-Pw7cX2"):
        assert leaks(logged, key) == [], key
        assert leaks("\n".join(texts), key) == [], key


def test_the_leak_detector_finds_every_form_of_a_key() -> None:
    basic = base64.b64encode(f"apikey:{TENANT_KEY}".encode()).decode()
    assert leaks(f"Authorization: Basic {basic}", TENANT_KEY) == ["basic", "basic without padding"]
    assert leaks(f"Authorization: Bearer {TENANT_KEY}", TENANT_KEY) == ["raw"]
    assert leaks("Authorization: Basic [redacted]", TENANT_KEY) == []
