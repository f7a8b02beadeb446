"""Broken local storage: corrupted or missing index files, an unwritable data directory, a
locked state database, a corrupted state database.

Each fault must be detected, reported by ``status`` and on the affected tool calls, and
repaired by ``rebuild``; the other tenant keeps being served from its own index.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from tests.reliability.conftest import (
    assert_exactly_once,
    index_snapshot,
    run_opindex,
)
from tests.support.config_files import write_config
from tests.support.corpora import BOB, CAROL, PROJECT_MARKERS, expected_all
from tests.support.mcp_clients import (
    error_text,
    in_process_client,
    result_ids,
    result_text,
    structured,
)
from tests.support.processes import unprivileged_prefix
from tests.support.sandbox import MEMBER_KEY, OUTSIDER_KEY, SandboxHandle, running_sandbox

from opindex import cli
from opindex.config import Config, load_config
from opindex.state import state_db_path
from opindex.sync import index_directory, sync_tenant, tenant_status

MARKER = PROJECT_MARKERS[1]
SEARCH = "openproject_search_work_packages"


@dataclass
class Site:
    """Tenants acme (bob) and beta (carol) on one sandbox, both synced."""

    sandbox: SandboxHandle
    corpus: dict[str, Any]
    config_path: Path

    @property
    def config(self) -> Config:
        return load_config(self.config_path)

    @property
    def data_dir(self) -> Path:
        return self.config_path.parent / "data"

    def marker_ids(self, user: int) -> set[int]:
        """Work packages of project 1 the user sees (every user sees project 1)."""
        return {i for i in expected_all(self.corpus, user)["work_package"] if i % 4 == 0}


@pytest.fixture(scope="module")
def template(corpus: dict[str, Any], tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    """One synced site per module; every test works on a copy of it."""
    directory = tmp_path_factory.mktemp("storage-template")
    with running_sandbox(corpus, wiki_list=True) as sandbox:
        tenants = [("acme", sandbox, MEMBER_KEY), ("beta", sandbox, OUTSIDER_KEY)]
        config_path = write_config(directory, tenants)
        config = load_config(config_path)
        for tenant in config.tenants:
            asyncio.run(sync_tenant(tenant, config.data_dir))
        yield Site(sandbox, corpus, config_path)


@pytest.fixture
def site(template: Site, tmp_path: Path) -> Site:
    """A private copy of the synced template (config and data directory)."""
    copy = tmp_path / "site"
    shutil.copytree(template.config_path.parent, copy)
    return Site(template.sandbox, template.corpus, copy / template.config_path.name)


def _live_generation(site: Site) -> Path:
    directory = index_directory(site.data_dir, "acme")
    name = directory.current()
    assert name is not None
    return directory.root / name


def _rewrite(
    suffixes: tuple[str, ...], content: Callable[[bytes], bytes]
) -> Callable[[Site], None]:
    def damage(site: Site) -> None:
        files = [f for f in _live_generation(site).iterdir() if f.suffix in suffixes]
        assert files
        for path in files:
            path.write_bytes(content(path.read_bytes()))

    return damage


def _pointer(text: str | None) -> Callable[[Site], None]:
    def damage(site: Site) -> None:
        pointer = index_directory(site.data_dir, "acme").pointer
        if text is None:
            pointer.unlink()
        else:
            pointer.write_text(text, encoding="utf-8")

    return damage


def _remove_generation(site: Site) -> None:
    shutil.rmtree(_live_generation(site))


def _remove_meta(site: Site) -> None:
    (_live_generation(site) / "meta.json").unlink()


INDEX_DAMAGE: dict[str, Callable[[Site], None]] = {
    "meta.json garbage": _rewrite((".json",), lambda _: b"{garbage"),
    "meta.json missing": _remove_meta,
    "segment store truncated": _rewrite((".store",), lambda data: data[:10]),
    "term dictionary random": _rewrite((".idx", ".term"), lambda data: os.urandom(len(data))),
    "every segment file zeroed": _rewrite(
        (".idx", ".term", ".pos", ".store", ".fast", ".fieldnorm"), lambda data: bytes(len(data))
    ),
    "CURRENT garbage": _pointer("not a generation"),
    "CURRENT dangling": _pointer("g000099\n"),
    "CURRENT missing": _pointer(None),
    "generation directory missing": _remove_generation,
}
DAMAGED_FILES = {
    "meta.json garbage",
    "meta.json missing",
    "segment store truncated",
    "term dictionary random",
    "every segment file zeroed",
}
"""Cases where a published generation's files are damaged: status says ``damaged``; the
others leave no readable pointer to a generation: ``missing``."""


def _assert_beta_unaffected(site: Site) -> None:
    with in_process_client(site.config, tenant="beta") as client:
        result = client.call(SEARCH, {"query": MARKER, "source": "index"})
        assert set(result_ids(result)) == site.marker_ids(CAROL)
        meta = structured(result)["meta"]
        assert meta["source"] == "index" and meta["indexState"] == "fresh"


def _assert_repaired_by_rebuild(site: Site) -> None:
    argv = ["rebuild", "--config", str(site.config_path), "--tenant", "acme", "--quiet"]
    assert cli.main(argv) == cli.EXIT_OK
    status = tenant_status(site.config.tenant("acme"), site.data_dir)
    assert status.state == "fresh" and status.problems == () and status.last_error is None
    assert_exactly_once(index_snapshot(site.data_dir), expected_all(site.corpus, BOB))
    with in_process_client(site.config, tenant="acme") as client:
        result = client.call(SEARCH, {"query": MARKER, "source": "index"})
        assert set(result_ids(result)) == site.marker_ids(BOB)


@pytest.mark.parametrize("case", list(INDEX_DAMAGE))
def test_damaged_index_is_reported_by_status_and_repaired_by_rebuild(
    site: Site, case: str, capsys: pytest.CaptureFixture[str]
) -> None:
    INDEX_DAMAGE[case](site)

    capsys.readouterr()
    assert cli.main(["status", "--config", str(site.config_path), "--json"]) == cli.EXIT_OK
    acme, beta = json.loads(capsys.readouterr().out)["tenants"]
    state = "damaged" if case in DAMAGED_FILES else "missing"
    assert acme["state"] == state and acme["problems"], acme
    assert all("index" in problem for problem in acme["problems"])
    assert beta["state"] == "fresh" and beta["problems"] == []
    with in_process_client(site.config, tenant="acme") as client:
        report = structured(client.call("openproject_index_status", {}))["tenants"][0]
        assert report["state"] == state and len(report["problems"]) == len(acme["problems"])
        assert all(p.startswith("index: ") for p in report["problems"]), report
        assert str(site.data_dir) not in json.dumps(report)  # no server path

    _assert_beta_unaffected(site)
    _assert_repaired_by_rebuild(site)


@pytest.mark.parametrize("case", [case for case in INDEX_DAMAGE if case != "CURRENT missing"])
def test_damaged_index_is_reported_on_the_search_tool(site: Site, case: str) -> None:
    INDEX_DAMAGE[case](site)
    with in_process_client(site.config, tenant="acme") as client:
        auto = client.call(SEARCH, {"query": MARKER})
        assert set(result_ids(auto)) == site.marker_ids(BOB)  # answered live
        meta = structured(auto)["meta"]
        assert meta["source"] == "live"
        assert any("index" in note and "read" in note for note in meta["notes"]), meta
        message = error_text(client.call(SEARCH, {"query": MARKER, "source": "index"}))
        assert "index" in message and "no index yet" not in message
        read = client.call("openproject_get_work_package", {"id": 4})
        assert structured(read)["record"]["id"] == 4, result_text(read)
        assert structured(read)["meta"]["source"] == "live"
        assert any("index" in note for note in structured(read)["meta"]["notes"])


def test_a_removed_index_is_reported_as_missing_on_the_search_tool(site: Site) -> None:
    INDEX_DAMAGE["CURRENT missing"](site)
    with in_process_client(site.config, tenant="acme") as client:
        meta = structured(client.call(SEARCH, {"query": MARKER}))["meta"]
        assert meta["source"] == "live" and meta["indexState"] == "missing"
        message = error_text(client.call(SEARCH, {"query": MARKER, "source": "index"}))
        assert "no index" in message


def test_a_pointer_changed_under_a_running_server_is_seen_at_its_next_search(site: Site) -> None:
    # The freshness check reads CURRENT again only when its stamp changed: an in-place
    # rewrite (a new mtime) and a removal are both seen by the very next search.
    with in_process_client(site.config, tenant="acme") as client:
        for _ in range(2):
            fresh = structured(client.call(SEARCH, {"query": MARKER}))["meta"]
            assert fresh["source"] == "index" and fresh["indexState"] == "fresh", fresh
        INDEX_DAMAGE["CURRENT garbage"](site)
        damaged = structured(client.call(SEARCH, {"query": MARKER}))["meta"]
        assert damaged["source"] == "live", damaged
        assert any("index" in note and "read" in note for note in damaged["notes"]), damaged
        INDEX_DAMAGE["CURRENT missing"](site)
        missing = structured(client.call(SEARCH, {"query": MARKER}))["meta"]
        assert missing["source"] == "live" and missing["indexState"] == "missing", missing


# --- an unwritable data directory ---------------------------------------------------


def _make_read_only(root: Path) -> None:
    for directory, _, files in os.walk(root):
        for name in files:
            os.chmod(os.path.join(directory, name), 0o400)
        os.chmod(directory, 0o500)


def _make_writable(root: Path) -> None:
    for directory, _, files in os.walk(root):
        os.chmod(directory, 0o700)
        for name in files:
            os.chmod(os.path.join(directory, name), 0o600)


@pytest.mark.slow
def test_unwritable_tenant_directory_is_reported_and_repaired(site: Site, tmp_path: Path) -> None:
    prefix = unprivileged_prefix(tmp_path / "probe")
    tenant_dir = site.data_dir / "acme"
    _make_read_only(tenant_dir)
    try:
        status = run_opindex("status", "--config", str(site.config_path), "--json", prefix=prefix)
        assert status.returncode == cli.EXIT_OK, status.stderr
        acme, beta = json.loads(status.stdout)["tenants"]
        assert acme["state"] == "missing" and acme["problems"]
        assert any("Permission denied" in p or "readonly" in p for p in acme["problems"])
        assert beta["state"] == "fresh" and beta["problems"] == []

        sync = run_opindex("sync", "--config", str(site.config_path), "--quiet", prefix=prefix)
        assert sync.returncode == cli.EXIT_LOCAL_STORAGE
        assert "acme" in sync.stderr and "Permission denied" in sync.stderr
        assert "Traceback" not in sync.stderr and "beta" not in sync.stderr  # beta synced
    finally:
        _make_writable(tenant_dir)
    _assert_beta_unaffected(site)
    _assert_repaired_by_rebuild(site)


def test_an_uncreatable_data_directory_is_one_clear_error(tmp_path: Path, template: Site) -> None:
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("a file where the data directory should go", encoding="utf-8")
    config = write_config(
        tmp_path, [("acme", template.sandbox, MEMBER_KEY)], data_dir=f"{blocker}/data"
    )
    result = run_opindex("sync", "--config", str(config), timeout=60)
    assert result.returncode == cli.EXIT_LOCAL_STORAGE
    assert "cannot create directory" in result.stderr and "Traceback" not in result.stderr
    status = run_opindex("status", "--config", str(config), timeout=60)
    assert status.returncode == cli.EXIT_OK and "acme: missing" in status.stdout


# --- a locked or corrupted state database -------------------------------------------


def _hold_exclusive_lock(database: Path) -> subprocess.Popen[str]:
    """Another process holding an exclusive lock on the state database until killed."""
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sqlite3, sys, time\n"
            "c = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
            "c.execute('PRAGMA locking_mode=EXCLUSIVE')\n"
            "c.execute('BEGIN EXCLUSIVE')\n"
            "c.execute('CREATE TABLE IF NOT EXISTS holder (x)')\n"
            "print('locked', flush=True)\n"
            "time.sleep(600)\n",
            str(database),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
    return holder


@pytest.mark.slow
def test_locked_state_database_is_reported_and_the_other_tenant_is_unaffected(
    site: Site, capsys: pytest.CaptureFixture[str]
) -> None:
    holder = _hold_exclusive_lock(state_db_path(site.data_dir, "acme"))
    try:
        capsys.readouterr()
        assert cli.main(["status", "--config", str(site.config_path), "--json"]) == cli.EXIT_OK
        acme, beta = json.loads(capsys.readouterr().out)["tenants"]
        assert any("locked by another process" in p for p in acme["problems"]), acme
        assert beta["state"] == "fresh" and beta["problems"] == []

        argv = ["sync", "--config", str(site.config_path), "--tenant", "acme", "--quiet"]
        assert cli.main(argv) == cli.EXIT_LOCAL_STORAGE
        assert "locked by another process" in capsys.readouterr().err

        _assert_beta_unaffected(site)
    finally:
        holder.kill()
        holder.wait(timeout=30)
    _assert_repaired_by_rebuild(site)


@pytest.mark.slow
def test_locked_state_database_is_reported_on_the_search_tool(site: Site) -> None:
    holder = _hold_exclusive_lock(state_db_path(site.data_dir, "acme"))
    try:
        with in_process_client(site.config, tenant="acme") as client:
            result = client.call(SEARCH, {"query": MARKER})
    finally:
        holder.kill()
        holder.wait(timeout=30)
    assert set(result_ids(result)) == site.marker_ids(BOB)  # answered live meanwhile
    meta = structured(result)["meta"]
    assert any("state database" in note for note in meta["notes"]), meta


def test_corrupted_state_database_is_reported_and_moved_aside_by_rebuild(
    site: Site, capsys: pytest.CaptureFixture[str]
) -> None:
    database = state_db_path(site.data_dir, "acme")
    garbage = b"not a database " * 100
    database.write_bytes(garbage)

    capsys.readouterr()
    assert cli.main(["status", "--config", str(site.config_path), "--json"]) == cli.EXIT_OK
    acme, beta = json.loads(capsys.readouterr().out)["tenants"]
    assert any("not a usable state database" in p for p in acme["problems"])
    assert beta["state"] == "fresh"
    argv = ["sync", "--config", str(site.config_path), "--tenant", "acme", "--quiet"]
    assert cli.main(argv) == cli.EXIT_LOCAL_STORAGE  # a plain sync leaves it alone
    assert "`opindex rebuild` moves it aside" in capsys.readouterr().err
    assert database.read_bytes() == garbage
    _assert_beta_unaffected(site)

    _assert_repaired_by_rebuild(site)
    kept = list(database.parent.glob("state.sqlite3.corrupt-*"))
    assert [path.read_bytes() for path in kept] == [garbage]  # nothing thrown away
    with sqlite3.connect(database) as connection:  # a fresh, valid database
        assert connection.execute("PRAGMA integrity_check").fetchone() == ("ok",)
