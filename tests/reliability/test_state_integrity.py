"""A state database with damaged pages behind a valid header, or rows opindex never wrote:
reported as damaged by ``status``, refused by ``sync``, moved aside by ``rebuild``."""

from __future__ import annotations

import asyncio
import json
import shutil
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.reliability.conftest import (
    assert_exactly_once,
    index_snapshot,
    run_opindex,
)
from tests.support.config_files import write_config
from tests.support.corpora import BOB, PROJECT_MARKERS, expected_all
from tests.support.mcp_clients import in_process_client, result_ids, structured
from tests.support.sandbox import MEMBER_KEY, running_sandbox

from opindex import cli
from opindex.config import load_config
from opindex.errors import StateCorruptError
from opindex.state import StateStore, state_db_path
from opindex.sync import sync_tenant

PAGE = 4096


@pytest.fixture(scope="module")
def template(corpus: dict[str, Any], tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    directory = tmp_path_factory.mktemp("state-integrity")
    with running_sandbox(corpus, wiki_list=True) as sandbox:
        config_path = write_config(directory, [("acme", sandbox, MEMBER_KEY)])
        config = load_config(config_path)
        asyncio.run(sync_tenant(config.tenant("acme"), config.data_dir))
        yield config_path


@pytest.fixture
def config_path(template: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "site"
    shutil.copytree(template.parent, copy)
    return copy / template.name


def damage_pages(database: Path) -> None:
    """Garbage over every page but the first: the header (and the schema page's first
    bytes) stay valid, so SQLite opens the file and fails only when it reads a page."""
    data = bytearray(database.read_bytes())
    assert len(data) > 3 * PAGE, len(data)
    for position in range(PAGE + 16, len(data)):
        data[position] = (position * 7 + 13) % 256
    database.write_bytes(bytes(data))


def unparsable_run(database: Path) -> None:
    """A sync run whose start time is a number and whose counts are a list: rows that
    SQLite stores happily and opindex never writes."""
    with sqlite3.connect(database) as connection:
        connection.execute("UPDATE sync_runs SET started_at = 12345, counts = '[1, 2]'")


DAMAGE: dict[str, Callable[[Path], None]] = {
    "damaged pages": damage_pages,
    "unparsable rows": unparsable_run,
}


@pytest.mark.parametrize("case", list(DAMAGE))
def test_a_damaged_state_database_is_reported_refused_and_moved_aside_by_rebuild(
    config_path: Path, corpus: dict[str, Any], case: str
) -> None:
    config = load_config(config_path)
    database = state_db_path(config.data_dir, "acme")
    DAMAGE[case](database)
    damaged = database.read_bytes()

    status = run_opindex("status", "--config", str(config_path), "--json")
    assert status.returncode == cli.EXIT_OK and "Traceback" not in status.stderr
    (acme,) = json.loads(status.stdout)["tenants"]
    problems = [p for p in acme["problems"] if p.startswith("state database")]
    assert problems, acme
    assert "opindex rebuild" in problems[0] and "moves it aside" in problems[0]

    sync = run_opindex("sync", "--config", str(config_path), "--quiet")
    assert sync.returncode == cli.EXIT_LOCAL_STORAGE, sync.stderr
    assert "Traceback" not in sync.stderr and "TypeError" not in sync.stderr
    assert "opindex rebuild" in sync.stderr
    if case == "damaged pages":  # refused at open (quick_check): not even a run recorded
        assert database.read_bytes() == damaged

    rebuild = run_opindex("rebuild", "--config", str(config_path), "--tenant", "acme", "--quiet")
    assert rebuild.returncode == cli.EXIT_OK, rebuild.stderr
    kept = list(database.parent.glob("state.sqlite3.corrupt-*"))
    assert len(kept) == 1  # kept, not thrown away
    if case == "damaged pages":
        assert kept[0].read_bytes() == damaged
    after = run_opindex("status", "--config", str(config_path), "--json", "--verify")
    (acme,) = json.loads(after.stdout)["tenants"]
    assert acme["state"] == "fresh" and acme["problems"] == [], acme
    assert_exactly_once(index_snapshot(config.data_dir), expected_all(corpus, BOB))
    marker_ids = {i for i in expected_all(corpus, BOB)["work_package"] if i % 4 == 0}
    with in_process_client(config, tenant="acme") as client:
        result = client.call(
            "openproject_search_work_packages", {"query": PROJECT_MARKERS[1], "source": "index"}
        )
        assert set(result_ids(result)) == marker_ids
        assert structured(result)["meta"]["indexState"] == "fresh"


def test_reading_an_unparsable_row_is_a_state_corrupt_error(config_path: Path) -> None:
    data_dir = load_config(config_path).data_dir
    unparsable_run(state_db_path(data_dir, "acme"))
    with StateStore.for_tenant(data_dir, "acme") as state:
        with pytest.raises(StateCorruptError, match="does not parse"):
            state.latest_run()
        with pytest.raises(StateCorruptError, match="does not parse"):
            state.last_successful_run()


def test_quick_check_passes_a_sound_database(config_path: Path) -> None:
    data_dir = load_config(config_path).data_dir
    with StateStore.for_tenant(data_dir, "acme", check="full") as state:
        assert state.latest_run() is not None
