"""Fixtures of the MCP tests: a synced two-team sandbox site and MCP clients for it."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.types import CallToolResult
from tests.mcp.mcp_site import BOB_KEY, CAROL_KEY, two_team_corpus, write_config
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
    config_path = write_config(directory, sandbox.base_url, {"bob": BOB_KEY, "carol": CAROL_KEY})
    config = load_config(config_path)
    sync_all(config)
    return Site(sandbox, directory, config_path, config)


@asynccontextmanager
async def http_client(url: str, headers: dict[str, str] | None = None) -> AsyncIterator[Client]:
    """An MCP client over streamable HTTP sending ``headers`` with every request."""
    async with (
        httpx2.AsyncClient(headers=headers or {}, timeout=60) as http,
        Client(streamable_http_client(url, http_client=http)) as client,
    ):
        yield client


def structured(result: CallToolResult) -> dict[str, Any]:
    """The structured content of a successful result (fails the test otherwise)."""
    text = result.content[0].text if result.content else ""  # type: ignore[union-attr]
    assert not result.is_error, text
    assert result.structured_content is not None
    return result.structured_content


def error_text(result: CallToolResult) -> str:
    """The text of an error result (fails the test if it is not one)."""
    assert result.is_error, result.structured_content
    return "\n".join(getattr(block, "text", "") for block in result.content)


def result_ids(result: CallToolResult) -> list[int]:
    """Ids of the records a search or listing result returned, in order."""
    return [item["id"] for item in structured(result)["results"]]
