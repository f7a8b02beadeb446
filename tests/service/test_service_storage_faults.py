"""Broken local storage seen through the Service: answers stay honest about why."""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from tests.support.recall_corpus import RECALL_KEY, recall_corpus
from tests.support.synced_tenant import TENANT, SyncedTenant, synced_tenant

from opindex.config import Config
from opindex.envelope import SearchRequest
from opindex.errors import IndexUnavailableError
from opindex.service import Service
from opindex.state import state_db_path
from opindex.sync import index_directory

REQUEST = SearchRequest(kind="work_package", query="kubernet upgrade")


@pytest.fixture(scope="module")
def tenant(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SyncedTenant]:
    with synced_tenant(tmp_path_factory.mktemp("faults"), recall_corpus(), RECALL_KEY) as t:
        yield t


@pytest.fixture
def config(tenant: SyncedTenant, tmp_path: Path) -> Config:
    """The synced tenant's configuration on a private copy of its data directory."""
    copy = tmp_path / "data"
    shutil.copytree(tenant.data_dir, copy)
    return replace(tenant.config, data_dir=copy)


async def test_unreadable_index_pointer_is_explained(config: Config) -> None:
    index_directory(config.data_dir, TENANT).pointer.write_text("garbage", encoding="utf-8")
    async with Service.from_config(config) as service:
        response = await service.search(REQUEST)
        assert response.meta.source == "live"
        assert response.meta.index_state == "missing"
        assert response.results[0].id == 12
        assert any("index could not be read" in note for note in response.meta.notes)
        with pytest.raises(IndexUnavailableError) as error:
            await service.search(REQUEST.model_copy(update={"source": "index"}))
    assert "no index yet" not in str(error.value)


async def test_damaged_index_files_send_reads_live(config: Config) -> None:
    directory = index_directory(config.data_dir, TENANT)
    generation = directory.root / str(directory.current())
    for path in generation.iterdir():
        if path.suffix == ".store":
            path.write_bytes(path.read_bytes()[:10])
    async with Service.from_config(config) as service:
        record = await service.get_record(None, "work_package", 12)
        assert record.meta.source == "live"
        assert record.record.id == 12
        assert any("index could not be read" in note for note in record.meta.notes)
        response = await service.search(REQUEST)
    assert response.meta.source == "live"
    assert any("index could not be read" in note for note in response.meta.notes)


async def test_locked_state_database_means_unknown_age(config: Config) -> None:
    database = state_db_path(config.data_dir, TENANT)
    holder = sqlite3.connect(database, isolation_level=None)
    try:
        holder.execute("PRAGMA locking_mode=EXCLUSIVE")
        holder.execute("BEGIN EXCLUSIVE")
        async with Service.from_config(config) as service:
            response = await service.search(REQUEST)
    finally:
        holder.close()
    assert response.meta.source == "live"
    assert response.meta.index_state == "stale"
    assert response.meta.indexed_at is None
    assert any("state database could not be read" in note for note in response.meta.notes)
