"""Fixtures of the reliability suite: sandboxes, tenants, configs, index snapshots, processes."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from tests.support.corpora import KINDS, reliability_corpus
from tests.support.processes import opindex_argv, subprocess_env
from tests.support.sandbox import SandboxHandle, running_sandbox

from opindex.index import TenantIndex
from opindex.state import StateStore
from opindex.sync import index_directory

Snapshot = dict[str, Any]


class ShortTimeoutTransport(httpx.AsyncBaseTransport):
    """Real HTTP with every timeout cut to ``seconds`` (the client's own default is 30 s),
    so a hanging server is given up on quickly."""

    def __init__(self, seconds: float) -> None:
        self._inner = httpx.AsyncHTTPTransport()
        self._seconds = seconds

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        limit = self._seconds
        request.extensions = {
            **request.extensions,
            "timeout": {"connect": limit, "read": limit, "write": limit, "pool": limit},
        }
        return await self._inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self._inner.aclose()


def index_snapshot(data_dir: Path, tenant: str = "acme") -> Snapshot:
    """What a reader of the live index sees: every id per kind (duplicates kept) and the
    title of every work package."""
    with TenantIndex(index_directory(data_dir, tenant)) as reader:
        seen: Snapshot = {kind: reader.all_ids(kind) for kind in KINDS}
        titles = {}
        for wp_id in seen["work_package"]:
            record = reader.get("work_package", wp_id)
            titles[wp_id] = record.title if record is not None else None
        seen["titles"] = titles
    return seen


def assert_exactly_once(snapshot: Snapshot, expected: dict[str, set[int]]) -> None:
    """Every expected document is present, once, and nothing else."""
    for kind in KINDS:
        ids = snapshot[kind]
        assert len(ids) == len(set(ids)), f"duplicate {kind} documents: {sorted(ids)}"
        assert set(ids) == expected[kind], kind


def run_outcomes(data_dir: Path, tenant: str = "acme") -> list[str]:
    """Outcomes of the tenant's runs, oldest first."""
    with StateStore.for_tenant(data_dir, tenant) as state:
        return [run.outcome for run in reversed(state.recent_runs())]


def run_opindex(
    *args: str, timeout: float = 120, prefix: tuple[str, ...] = (), cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """Run the CLI in a subprocess; stdout and stderr captured as text."""
    return subprocess.run(
        [*prefix, *opindex_argv(*args)],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=subprocess_env(),
        cwd=cwd,
    )


@pytest.fixture(scope="module")
def corpus() -> dict[str, Any]:
    return reliability_corpus()


@pytest.fixture
def sandbox(corpus: dict[str, Any]) -> Iterator[SandboxHandle]:
    """A sandbox of the test's own (tests here mutate the corpus and inject faults)."""
    with running_sandbox(corpus, wiki_list=True) as handle:
        yield handle
