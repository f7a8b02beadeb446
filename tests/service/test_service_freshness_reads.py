"""Freshness per search: the state rows are read again only after another connection
committed (SQLite's data_version), and what it committed is seen at once."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from opindex.config import Secret, TenantConfig
from opindex.index import TenantIndex
from opindex.service.tenant import Tenant
from opindex.state import StateStore
from opindex.sync import index_directory

START = datetime(2026, 5, 1, 9, 0, tzinfo=UTC)


class Clock:
    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def tenant(tmp_path: Path, clock: Clock) -> Iterator[Tenant]:
    TenantIndex.create(index_directory(tmp_path, "acme")).close()
    config = TenantConfig(
        name="acme",
        base_url="http://127.0.0.1:9",
        api_key=Secret("k" * 40),
        max_staleness_seconds=3600,
    )
    opened = Tenant(config, tmp_path, clock=clock)
    yield opened
    opened._close_state()


def _succeeded_run(data_dir: Path, clock: Clock) -> None:
    """A sync run recorded by another connection (as the syncer or another process)."""
    writer = StateStore.for_tenant(data_dir, "acme", clock=clock)
    try:
        run = writer.start_run("incremental")
        writer.finish_run(run.id)
    finally:
        writer.close()


def test_another_connections_run_is_seen_by_the_next_search(
    tmp_path: Path, tenant: Tenant, clock: Clock
) -> None:
    _succeeded_run(tmp_path, clock)
    first = tenant.freshness()
    assert (first.state, first.indexed_at) == ("fresh", START)
    clock.now = START + timedelta(hours=2)
    assert tenant.freshness().state == "stale"  # the age follows the clock, rows unread
    _succeeded_run(tmp_path, clock)
    again = tenant.freshness()
    assert (again.state, again.indexed_at) == ("fresh", START + timedelta(hours=2))


def test_an_unchanged_state_is_not_read_again(tmp_path: Path, tenant: Tenant, clock: Clock) -> None:
    _succeeded_run(tmp_path, clock)
    tenant.freshness()
    executed: set[str] = set()

    def watch(frame: object, event: str, arg: object) -> None:
        if event == "call":
            executed.add(frame.f_code.co_filename)  # type: ignore[attr-defined]

    sys.setprofile(watch)
    try:
        for _ in range(3):
            assert tenant.freshness().state == "fresh"
    finally:
        sys.setprofile(None)
    read_rows = {Path(name).name for name in executed if "opindex/state" in name}
    assert read_rows <= {"database.py"}, read_rows
