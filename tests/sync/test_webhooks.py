"""Webhooks end to end: a real sandbox sends signed deliveries to a real ``opindex serve``.

The sandbox runs with ``--webhook-url``/``--webhook-secret`` pointing at the tenant's
webhook path on ``opindex serve --transport http --no-sync``, so every change made
through ``/_sandbox/mutate`` travels the path OpenProject's would: signed POST, signature
check, re-fetch with the tenant's own credential, index commit.
"""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from tests.support.config_files import write_config
from tests.support.corpora import sample_corpus
from tests.support.processes import http_server_process, wait_until
from tests.support.sandbox import MEMBER_KEY, SandboxHandle, running_sandbox
from tests.sync.conftest import indexed_ids

from opindex import cli
from opindex.index import TenantIndex
from opindex.state import StateStore
from opindex.sync import index_directory
from opindex.webhook_signature import sign

SECRET = "webhook-secret-for-tests"
PATH = "/hooks/acme"
WAIT_SECONDS = 60.0


@dataclass
class Site:
    sandbox: SandboxHandle
    data_dir: Path
    hook_url: str


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _title(data_dir: Path, wp_id: int) -> str | None:
    with TenantIndex(index_directory(data_dir, "acme")) as index:
        record = index.get("work_package", wp_id)
    return record.title if record is not None else None


def _counts(data_dir: Path) -> dict[str, int]:
    with StateStore.for_tenant(data_dir, "acme") as state:
        return {name: count.count for name, count in state.webhook_counts().items()}


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    directory = tmp_path_factory.mktemp("webhooks")
    port = _free_port()
    hook_url = f"http://127.0.0.1:{port}{PATH}"
    with running_sandbox(
        sample_corpus(), wiki_list=True, webhook_url=hook_url, webhook_secret=SECRET
    ) as sandbox:
        config = write_config(
            directory,
            [("acme", sandbox, MEMBER_KEY)],
            webhook_path=PATH,
            webhook_secret=SECRET,
        )
        assert cli.main(["sync", "--config", str(config), "--quiet"]) == cli.EXIT_OK
        with http_server_process(config, "--no-sync", "--port", str(port)):
            yield Site(sandbox, directory / "data", hook_url)


def test_a_signed_webhook_makes_the_change_searchable(site: Site) -> None:
    site.sandbox.reset_stats()
    site.sandbox.mutate("upsert", "work_packages", {"id": 5, "subject": "Zircon valve audit"})
    wait_until(
        lambda: _title(site.data_dir, 5) == "Zircon valve audit",
        "the webhook re-fetch",
        timeout=WAIT_SECONDS,
    )
    by_path = site.sandbox.stats()["by_path"]
    # Re-read with bob's credential: one id query and its activities, nothing else.
    assert by_path.get("/api/v3/work_packages/5/activities") == 1
    assert _counts(site.data_dir).get("accepted", 0) >= 1


def test_unsigned_or_wrongly_signed_deliveries_change_nothing(site: Site) -> None:
    before = _title(site.data_dir, 6)
    counts = _counts(site.data_dir)
    site.sandbox.reset_stats()
    body = json.dumps(
        {"action": "work_package:updated", "work_package": {"id": 6, "subject": "Forged"}}
    ).encode()
    unsigned = httpx.post(site.hook_url, content=body, timeout=10)
    wrong = httpx.post(
        site.hook_url,
        content=body,
        headers={"X-OP-Signature": sign("not-the-secret", body)},
        timeout=10,
    )
    tampered = httpx.post(
        site.hook_url,
        content=body.replace(b"Forged", b"Forgeds"),
        headers={"X-OP-Signature": sign(SECRET, body)},
        timeout=10,
    )
    assert [r.status_code for r in (unsigned, wrong, tampered)] == [401, 401, 401]
    assert "X-OP-Signature" in unsigned.json()["error"]
    assert SECRET not in unsigned.text + wrong.text + tampered.text
    # Refusals are written together, a moment later.
    wait_until(
        lambda: _counts(site.data_dir).get("refused", 0) == counts.get("refused", 0) + 3,
        "the refusals to be counted",
    )
    assert _counts(site.data_dir).get("accepted", 0) == counts.get("accepted", 0)
    assert site.sandbox.stats()["requests"] == 0  # nothing was re-fetched
    assert _title(site.data_dir, 6) == before


def test_a_webhook_for_an_invisible_project_indexes_nothing(site: Site) -> None:
    # Project 4 is the admin's alone; the sandbox's webhook (rendered as the System user)
    # carries the whole work package, which must not reach bob's index.
    secret_wp: dict[str, Any] = {
        "id": 777,
        "project": 4,
        "subject": "Board salary review",
        "type": 1,
        "status": 1,
        "author": 1,
    }
    site.sandbox.mutate("upsert", "work_packages", secret_wp)
    # A visible change after it: once it is indexed, the earlier delivery was handled too.
    site.sandbox.mutate("upsert", "work_packages", {"id": 9, "subject": "Garnet seal check"})
    wait_until(
        lambda: _title(site.data_dir, 9) == "Garnet seal check",
        "the webhook re-fetch",
        timeout=WAIT_SECONDS,
    )
    assert 777 not in indexed_ids(site.data_dir, "acme", "work_package")
    with StateStore.for_tenant(site.data_dir, "acme") as state:
        assert state.get_known("work_package", 777) is None


def test_a_delivery_that_is_not_json_or_names_nothing(site: Site) -> None:
    counts = _counts(site.data_dir)
    garbage = b"{not json"
    refused = httpx.post(
        site.hook_url, content=garbage, headers={"X-OP-Signature": sign(SECRET, garbage)}
    )
    other = json.dumps({"action": "time_entry:created", "time_entry": {"id": 3}}).encode()
    ignored = httpx.post(
        site.hook_url, content=other, headers={"X-OP-Signature": sign(SECRET, other)}
    )
    assert refused.status_code == 400 and ignored.status_code == 200
    assert _counts(site.data_dir).get("ignored", 0) == counts.get("ignored", 0) + 1
    wait_until(
        lambda: _counts(site.data_dir).get("refused", 0) == counts.get("refused", 0) + 1,
        "the refusal to be counted",
    )


def test_a_burst_of_deliveries_is_coalesced_into_few_refreshes(site: Site) -> None:
    ids = [wp_id for wp_id in range(1, 41) if wp_id % 4 in (1, 2)][:12]  # bob's projects
    site.sandbox.reset_stats()
    for wp_id in ids:
        site.sandbox.mutate("upsert", "work_packages", {"id": wp_id, "subject": f"Burst {wp_id}"})
    wait_until(
        lambda: all(_title(site.data_dir, wp_id) == f"Burst {wp_id}" for wp_id in ids),
        "every burst change to be indexed",
        timeout=WAIT_SECONDS,
    )
    by_path = site.sandbox.stats()["by_path"]
    id_queries = by_path.get("/api/v3/work_packages", 0)
    assert 1 <= id_queries <= 4, by_path  # one ``id =`` query per refresh, not per delivery
    assert all(by_path.get(f"/api/v3/work_packages/{i}/activities") == 1 for i in ids)
