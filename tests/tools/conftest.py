"""Fixtures of the tool-usability tests: the sample corpus served, synced, and MCP clients."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.types import CallToolResult
from tests.support.config_files import write_config
from tests.support.sandbox import SandboxHandle, running_sandbox

from opindex.config import Config, load_config
from opindex.mcp.server import ServerOptions, build_server
from opindex.sandbox.sample_corpus import sample_corpus_path
from opindex.sync import sync_tenant

ADMIN_KEY = "key-admin"
JUERGEN_KEY = "key-juergen.mueller"
JUERGEN = 101


@dataclass
class SampleSite:
    """The sample corpus on a sandbox; tenants ``admin`` and ``juergen``, both synced."""

    sandbox: SandboxHandle
    config_path: Path
    config: Config


@pytest.fixture(scope="session")
def sample_sandbox() -> Iterator[SandboxHandle]:
    """The sample corpus served (no test mutates it)."""
    with running_sandbox(sample_corpus_path()) as handle:
        yield handle


@pytest.fixture(scope="session")
def sample_site(
    sample_sandbox: SandboxHandle, tmp_path_factory: pytest.TempPathFactory
) -> SampleSite:
    """Both tenants configured and fully synced into a temporary data directory."""
    directory = tmp_path_factory.mktemp("sample-site")
    config_path = write_config(
        directory,
        [
            ("admin", sample_sandbox.base_url, ADMIN_KEY),
            ("juergen", sample_sandbox.base_url, JUERGEN_KEY),
        ],
    )
    config = load_config(config_path)
    for tenant in config.tenants:
        asyncio.run(sync_tenant(tenant, config.data_dir))
    return SampleSite(sample_sandbox, config_path, config)


@asynccontextmanager
async def tools_client(site: SampleSite, tenant: str) -> AsyncIterator[Client]:
    """The real MCP client talking to an in-process server for *tenant* (no sync)."""
    options = ServerOptions(transport="stdio", tenant=tenant, sync=False)
    async with Client(build_server(site.config, options)) as client:
        yield client


def text_of(result: CallToolResult) -> str:
    """The text content of a result."""
    return "\n".join(getattr(block, "text", "") for block in result.content)


def structured(result: CallToolResult) -> dict[str, Any]:
    """The structured content of a successful result (fails the test otherwise)."""
    assert not result.is_error, text_of(result)
    assert result.structured_content is not None
    return result.structured_content


def error_of(result: CallToolResult) -> str:
    """The text of an error result (fails the test if it is not one)."""
    assert result.is_error, result.structured_content
    return text_of(result)
