"""Fixtures of the MCP tests: a synced two-team sandbox site and MCP clients for it."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from tests.support.config_files import write_config
from tests.support.corpora import BOB_KEY, CAROL_KEY, two_team_corpus
from tests.support.sandbox import SandboxHandle, running_sandbox

from opindex.config import Config, load_config
from opindex.sync import sync_tenant


@dataclass
class Site:
    """A running sandbox, a config file with tenants ``bob`` and ``carol``, synced."""

    sandbox: SandboxHandle
    directory: Path
    config_path: Path
    config: Config


def sync_all(config: Config) -> None:
    """A full sync of every configured tenant."""
    for tenant in config.tenants:
        asyncio.run(sync_tenant(tenant, config.data_dir))


@pytest.fixture(scope="session")
def sandbox() -> Iterator[SandboxHandle]:
    """The two-team sandbox, shared by every MCP test (none mutates it)."""
    with running_sandbox(two_team_corpus()) as handle:
        yield handle


@pytest.fixture(scope="session")
def site(sandbox: SandboxHandle, tmp_path_factory: pytest.TempPathFactory) -> Site:
    """Tenants bob and carol on the sandbox, both synced into the site's data dir."""
    directory = tmp_path_factory.mktemp("site")
    config_path = write_config(
        directory, [("bob", sandbox, BOB_KEY), ("carol", sandbox, CAROL_KEY)]
    )
    config = load_config(config_path)
    sync_all(config)
    return Site(sandbox, directory, config_path, config)
