"""``opindex sync``, ``rebuild`` and ``status`` as a user runs them: output and exit codes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from tests.support.config_files import write_config
from tests.support.corpora import expected_ids, user_of
from tests.support.sandbox import MEMBER_KEY, OUTSIDER_KEY, SandboxHandle
from tests.sync.conftest import indexed_ids

from opindex import cli

STATUS_KEYS = {
    "tenant",
    "state",
    "freshness",
    "last_sync_at",
    "age_seconds",
    "max_staleness_seconds",
    "last_error",
    "last_run",
    "documents",
    "index_bytes",
    "generation",
    "capabilities",
    "syncing",
    "problems",
    "verified",
    "manifest",
    "webhooks",
    "full_sync_checkpoint",
    "attachments",
}


@pytest.fixture
def config(sandbox: SandboxHandle, tmp_path: Path) -> Path:
    tenants = [("acme", sandbox, MEMBER_KEY), ("beta", sandbox, OUTSIDER_KEY)]
    return write_config(tmp_path, tenants)


def status_json(config: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    assert cli.main(["status", "--config", str(config), "--json"]) == cli.EXIT_OK
    data: dict[str, Any] = json.loads(capsys.readouterr().out)
    return data


def test_sync_every_tenant_then_status(
    config: Path, corpus: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    before = status_json(config, capsys)
    assert [t["state"] for t in before["tenants"]] == ["missing", "missing"]

    assert cli.main(["sync", "--config", str(config)]) == cli.EXIT_OK
    out, err = capsys.readouterr()
    lines = out.strip().splitlines()
    assert [line.split(":")[0] for line in lines] == ["acme", "beta"]
    assert all("full sync ok" in line for line in lines)
    assert "\r" not in err  # not a terminal: no progress line

    data = status_json(config, capsys)
    data_dir = config.parent / "data"
    for entry, key in zip(data["tenants"], (MEMBER_KEY, OUTSIDER_KEY), strict=True):
        assert set(entry) == STATUS_KEYS
        assert entry["state"] == "fresh" and entry["freshness"] == "fresh"
        assert entry["last_error"] is None and entry["syncing"] is None
        assert entry["last_run"]["outcome"] == "succeeded"
        assert entry["index_bytes"] > 0
        assert entry["full_sync_checkpoint"] is None and entry["webhooks"] == {}
        assert entry["manifest"]["added"] == entry["manifest"]["listed"]
        user = user_of(corpus, key)
        for kind, plural in (
            ("work_package", "work_packages"),
            ("wiki_page", "wiki_pages"),
            ("meeting", "meetings"),
        ):
            assert entry["documents"][plural] == len(expected_ids(corpus, user, kind))
            assert len(indexed_ids(data_dir, entry["tenant"], kind)) == entry["documents"][plural]
        assert entry["capabilities"]["server"]["meetings"] is True

    assert cli.main(["status", "--config", str(config)]) == cli.EXIT_OK
    text = capsys.readouterr().out
    assert "acme: fresh" in text and "beta: fresh" in text and "work packages" in text


def test_quiet_sync_prints_nothing_and_full_rereads(
    config: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["sync", "--config", str(config), "--tenant", "acme", "--quiet"]) == 0
    assert capsys.readouterr() == ("", "")
    assert cli.main(["sync", "--config", str(config), "--tenant", "acme", "--full"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("acme: full sync ok") and "beta" not in out


def test_rebuild_swaps_in_a_new_generation(
    config: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["sync", "--config", str(config), "--tenant", "acme", "--quiet"]) == 0
    generation = status_json(config, capsys)["tenants"][0]["generation"]

    assert cli.main(["rebuild", "--tenant", "acme", "--config", str(config)]) == 0
    assert capsys.readouterr().out.startswith("acme: rebuild sync ok")

    after = status_json(config, capsys)["tenants"][0]
    assert after["generation"] != generation
    assert after["last_run"]["kind"] == "rebuild" and after["state"] == "fresh"
    generations = sorted(p.name for p in (config.parent / "data" / "acme" / "index").iterdir())
    assert generations == ["CURRENT", after["generation"]]  # the old one was removed


def test_failure_exit_code_and_status_error(
    config: Path, sandbox: SandboxHandle, capsys: pytest.CaptureFixture[str]
) -> None:
    sandbox.fault("/api/v3/users/me", status=500)
    assert cli.main(["sync", "--config", str(config), "--tenant", "acme"]) == cli.EXIT_UPSTREAM
    err = capsys.readouterr().err
    assert err.startswith("opindex sync: ") and "500" in err

    entry = status_json(config, capsys)["tenants"][0]
    assert entry["state"] == "missing"
    assert entry["last_run"]["outcome"] == "failed"
    assert "500" in entry["last_error"]


def test_one_failing_tenant_does_not_stop_the_others(
    config: Path, sandbox: SandboxHandle, capsys: pytest.CaptureFixture[str]
) -> None:
    sandbox.fault("/api/v3/users/me", status=500)  # the first tenant's identity check
    assert cli.main(["sync", "--config", str(config)]) == cli.EXIT_UPSTREAM
    out, err = capsys.readouterr()
    assert "opindex sync: acme:" in err
    assert out.startswith("beta: full sync ok")


def test_unknown_tenant_is_a_usage_error(config: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["sync", "--config", str(config), "--tenant", "nope"]) == cli.EXIT_USAGE
    err = capsys.readouterr().err
    assert "unknown tenant 'nope'" in err and "acme" in err
    assert cli.main(["rebuild", "--tenant", "nope", "--config", str(config)]) == cli.EXIT_USAGE
    with pytest.raises(SystemExit):
        cli.main(["rebuild", "--config", str(config)])  # --tenant is required
