"""Honest states around damage: a damaged index answered live says ``damaged`` (meta, text,
status tool, CLI), a search finding damage prompts one sync of the serving daemon, and an
unreadable state database beside a readable index is reported as what it is."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from anyio.from_thread import start_blocking_portal
from mcp import Client
from tests.reliability.conftest import run_opindex, run_outcomes
from tests.support.config_files import write_config
from tests.support.corpus_builder import MEMBER_KEY, CorpusBuilder
from tests.support.mcp_clients import PortalClient, result_ids, result_text, structured
from tests.support.sandbox import running_sandbox

from opindex.config import Config, load_config
from opindex.daemon import SyncOutcome
from opindex.mcp.server import ServerOptions, build_server
from opindex.state import state_db_path
from opindex.sync import index_directory, sync_tenant

SEARCH = "openproject_search_work_packages"
IDS = {61, 62, 63}


@pytest.fixture
def config(tmp_path: Path) -> Iterator[Config]:
    """Tenant acme, synced once, background sync every hour (so only a prompt syncs)."""
    corpus = CorpusBuilder()
    for wp_id in sorted(IDS):
        corpus.add_work_package(wp_id, subject=f"Harbour crane {wp_id}")
    with running_sandbox(corpus.build()) as sandbox:
        path = write_config(tmp_path, [("acme", sandbox, MEMBER_KEY)], sync_interval_seconds=3600)
        loaded = load_config(path)
        asyncio.run(sync_tenant(loaded.tenants[0], loaded.data_dir))
        yield loaded


def live_generation(config: Config) -> Path:
    directory = index_directory(config.data_dir, "acme")
    name = directory.current()
    assert name is not None
    return directory.root / name


def garble_store(config: Config) -> None:
    """Same-length garbage in every document store file of the live generation."""
    files = [f for f in live_generation(config).iterdir() if f.suffix == ".store"]
    assert files
    for file in files:
        data = bytearray(file.read_bytes())
        for position in range(len(data) // 8, max(len(data) // 2, len(data) // 8 + 1)):
            data[position] ^= 0xA5
        file.write_bytes(bytes(data))


def damage_state_pages(config: Config) -> None:
    database = state_db_path(config.data_dir, "acme")
    data = bytearray(database.read_bytes())
    for position in range(4096 + 16, len(data)):
        data[position] = (position * 7 + 13) % 256
    database.write_bytes(bytes(data))


class Synced:
    """The daemon's finished runs, and an event set at the first."""

    def __init__(self) -> None:
        self.outcomes: list[SyncOutcome] = []
        self.first = threading.Event()

    def heard(self, outcome: SyncOutcome) -> None:
        self.outcomes.append(outcome)
        self.first.set()


@contextmanager
def serving(config: Config, *, sync: bool) -> Iterator[tuple[PortalClient, Synced]]:
    """A real MCP server (with its sync daemon when *sync*) and an SDK client on it."""
    synced = Synced()
    options = ServerOptions(transport="stdio", tenant="acme", sync=sync, on_sync=synced.heard)
    server = build_server(config, options)
    with (
        start_blocking_portal() as portal,
        portal.wrap_async_context_manager(Client(server)) as client,
    ):
        yield PortalClient(portal, client), synced


def test_a_damaged_index_answered_live_says_damaged_everywhere(config: Config) -> None:
    garble_store(config)
    with serving(config, sync=False) as (client, _):
        result = client.call(SEARCH, {"query": "harbour crane"})
        meta = structured(result)["meta"]
        assert meta["source"] == "live" and set(result_ids(result)) == IDS
        assert meta["indexState"] == "damaged", meta
        assert "damaged" in result_text(result)
        status = client.call("openproject_index_status", {})
        (tenant,) = structured(status)["tenants"]
        assert tenant["state"] == "damaged" and tenant["freshness"] == "damaged", tenant
        assert "index damaged" in result_text(status)
    config_path = str(config.source)
    search = run_opindex("search", "harbour", "--kind", "work_packages", "--config", config_path)
    assert search.returncode == 0, search.stderr
    assert "index damaged" in search.stdout and "index fresh" not in search.stdout


def test_damage_found_by_a_search_prompts_one_sync(config: Config) -> None:
    before = live_generation(config).name
    runs_before = len(run_outcomes(config.data_dir))
    with serving(config, sync=True) as (client, synced):
        garble_store(config)  # after the daemon's start: its schedule says "in an hour"
        for _ in range(5):
            assert set(result_ids(client.call(SEARCH, {"query": "harbour crane"}))) == IDS
        assert synced.first.wait(60), "no sync followed the damage"
        assert [outcome.outcome for outcome in synced.outcomes] == ["succeeded"]
        after = client.call(SEARCH, {"query": "harbour crane", "source": "index"})
        assert set(result_ids(after)) == IDS
        assert structured(after)["meta"]["indexState"] == "fresh"
    assert live_generation(config).name != before
    assert len(run_outcomes(config.data_dir)) == runs_before + 1


def test_status_with_an_unreadable_state_database_beside_a_fresh_index(config: Config) -> None:
    damage_state_pages(config)
    with serving(config, sync=False) as (client, _):
        status = client.call("openproject_index_status", {})
        (tenant,) = structured(status)["tenants"]
        text = result_text(status)
        assert tenant["state"] == "stale" and tenant["documents"]["work_packages"] == len(IDS)
        assert "never synced" not in text and "missing" not in text, text
        assert "state database" in text
    shown = run_opindex("status", "--config", str(config.source))
    assert shown.returncode == 0, shown.stderr
    assert "acme: stale" in shown.stdout and "never" not in shown.stdout, shown.stdout
    as_json = run_opindex("status", "--config", str(config.source), "--json")
    (tenant,) = json.loads(as_json.stdout)["tenants"]
    assert tenant["state"] == "stale" and tenant["age_seconds"] is None, tenant
