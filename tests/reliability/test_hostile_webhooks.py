"""Hostile webhook deliveries against a real ``opindex serve --transport http``: signed ones
naming ids out of range or nesting 100k deep, wrong shapes, a re-fetch that fails, 3,000
forged ones. Each gets a clear answer; none ends the tenant's webhook task (a valid
delivery afterwards is applied); the failure shows in ``opindex status`` and the status
tool until a re-fetch succeeds; the refusals are counted but logged a few lines only;
SIGTERM still exits 0 without a traceback."""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from tests.reliability.conftest import run_opindex
from tests.support.config_files import write_config
from tests.support.corpora import sample_corpus
from tests.support.mcp_clients import bearer, http_client, structured
from tests.support.processes import http_server_process, wait_until
from tests.support.raw_http import flood, post_request
from tests.support.sandbox import MEMBER_KEY, SandboxHandle, running_sandbox

from opindex import cli
from opindex.envelope import MAX_ID
from opindex.index import TenantIndex
from opindex.state import StateStore
from opindex.sync import index_directory
from opindex.webhook_signature import SIGNATURE_HEADER, sign

pytestmark = pytest.mark.slow

SECRET = "webhook-secret-for-tests"
HOOK_PATH = "/hooks/acme"
FORGED = 3_000
WAIT_SECONDS = 60.0


@dataclass
class Site:
    sandbox: SandboxHandle
    config: Path
    data_dir: Path
    stderr: Path


def _work_package(wp_id: object) -> dict[str, Any]:
    return {"action": "work_package:updated", "work_package": {"id": wp_id}}


def _comment(href: str) -> dict[str, Any]:
    link = {"workPackage": {"href": href}}
    return {"action": "work_package_comment:comment", "activity": {"_links": link}}


IGNORED = [
    _work_package(MAX_ID + 1),
    _work_package(2**64),
    _work_package(-1),
    _work_package(0),
    _work_package("5"),
    _work_package(5.0),
    _work_package(None),
    _work_package([5]),
    {"action": "work_package:updated", "work_package": "5"},
    _comment(f"/api/v3/work_packages/{MAX_ID + 1}"),
    _comment("/api/v3/work_packages/" + "9" * 5000),
    [{"action": "work_package:updated"}],
    "work_package:updated",
]
DEEP = b"[" * 100_000 + b"]" * 100_000


def _title(data_dir: Path, wp_id: int) -> str | None:
    with TenantIndex(index_directory(data_dir, "acme")) as index:
        record = index.get("work_package", wp_id)
    return record.title if record is not None else None


def _counts(data_dir: Path) -> dict[str, int]:
    with StateStore.for_tenant(data_dir, "acme") as state:
        return {name: count.count for name, count in state.webhook_counts().items()}


def _signed(hook: str, body: bytes) -> httpx.Response:
    return httpx.post(
        hook, content=body, headers={SIGNATURE_HEADER: sign(SECRET, body)}, timeout=30
    )


def _background_problems(config: Path) -> list[str]:
    shown = run_opindex("status", "--config", str(config), "--json")
    assert shown.returncode == 0, shown.stderr
    problems: list[str] = json.loads(shown.stdout)["tenants"][0]["problems"]
    return [problem for problem in problems if problem.startswith("background")]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    directory = tmp_path_factory.mktemp("hostile-webhooks")
    with running_sandbox(sample_corpus(), wiki_list=True) as sandbox:
        config = write_config(
            directory,
            [("acme", sandbox, MEMBER_KEY)],
            webhook_path=HOOK_PATH,
            webhook_secret=SECRET,
        )
        assert cli.main(["sync", "--config", str(config), "--quiet"]) == cli.EXIT_OK
        yield Site(sandbox, config, directory / "data", directory / "serve-stderr.txt")


def test_hostile_deliveries_never_stop_the_tenants_webhooks(site: Site) -> None:
    exit_codes: list[int] = []
    with http_server_process(site.config, "--no-sync", exit_codes=exit_codes) as url:
        hook = url.removesuffix("/mcp") + HOOK_PATH
        before = _counts(site.data_dir)
        for payload in IGNORED:
            answer = _signed(hook, json.dumps(payload).encode())
            assert answer.status_code == 200, (payload, answer.status_code, answer.text)
            assert "ignored" in answer.json(), payload
        assert (
            "no work package id in 1"
            in _signed(hook, json.dumps(_work_package(MAX_ID + 1)).encode()).json()["ignored"]
        )
        deep = _signed(hook, DEEP)
        assert deep.status_code == 400 and "not JSON" in deep.json()["error"]
        counts = _counts(site.data_dir)
        assert counts.get("ignored", 0) == before.get("ignored", 0) + len(IGNORED) + 1
        assert counts.get("accepted", 0) == before.get("accepted", 0)

        # A re-fetch that fails is logged, recorded and shown; the task goes on.
        site.sandbox.fault("/api/v3/work_packages", status=403, count=50)
        assert _signed(hook, json.dumps(_work_package(5)).encode()).status_code == 202
        wait_until(lambda: bool(_background_problems(site.config)), "the recorded failure")
        assert "background webhooks failed once" in _background_problems(site.config)[0]
        asyncio.run(_status_tool_shows_the_failure(url))
        site.sandbox.clear_faults()

        # A valid delivery afterwards is applied, and clears the failure.
        site.sandbox.mutate("upsert", "work_packages", {"id": 5, "subject": "Zircon valve audit"})
        assert _signed(hook, json.dumps(_work_package(5)).encode()).status_code == 202
        wait_until(
            lambda: _title(site.data_dir, 5) == "Zircon valve audit",
            "the valid delivery's re-fetch",
            timeout=WAIT_SECONDS,
        )
        wait_until(lambda: not _background_problems(site.config), "the failure to clear")

        # Forged deliveries: every one refused and counted, the log a few lines only.
        refused = _counts(site.data_dir).get("refused", 0)
        statuses: Counter[int] = Counter()
        forged = post_request(hook, {}, json.dumps(_work_package(5)).encode())
        asyncio.run(flood(hook, forged, FORGED, 8, lambda reply: statuses.update([reply[0]])))
        assert statuses == {401: FORGED}
        wait_until(
            lambda: _counts(site.data_dir).get("refused", 0) == refused + FORGED,
            "every forged delivery to be counted",
        )
    assert exit_codes == [0]
    log = site.stderr.read_text(encoding="utf-8")
    assert "Traceback" not in log
    refusal_lines = [line for line in log.splitlines() if "webhook delivery refused" in line]
    assert 1 <= len(refusal_lines) <= 5, len(refusal_lines)


async def _status_tool_shows_the_failure(url: str) -> None:
    async with http_client(url, bearer(MEMBER_KEY)) as client:
        answer = await client.call_tool("openproject_index_status", {})
    problems = structured(answer)["tenants"][0]["problems"]
    assert any("background webhooks failed" in problem for problem in problems), problems
