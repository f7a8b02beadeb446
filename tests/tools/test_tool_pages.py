"""Cursor pagination over MCP and the CLI: every record once, in order; stale cursors refused."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.types import CallToolResult
from tests.support.config_files import write_config
from tests.support.corpus_builder import ADMIN_KEY, CorpusBuilder
from tests.support.sandbox import SandboxHandle, running_sandbox
from tests.tools.conftest import error_of, structured, text_of

from opindex import cli
from opindex.config import Config, load_config
from opindex.mcp.server import ServerOptions, build_server
from opindex.sync import sync_tenant

SEARCH = "openproject_search_work_packages"
MATCHING = 13


def _corpus() -> dict[str, Any]:
    builder = CorpusBuilder()
    for number in range(1, MATCHING + 1):
        builder.add_work_package(
            100 + number,
            subject=f"Invoice export {number}" if number % 3 else f"Export batch {number}",
            description="Checks the invoice totals." if number % 3 == 0 else "Routine work.",
            updatedAt=f"2026-03-{number:02d}T09:00:00Z",
        )
    builder.add_wiki_page(7, title="Invoice handbook", text="How invoices are sent.")
    builder.add_work_package(300, subject="Unrelated chore", description="Nothing here.")
    return builder.build()


class PagedSite:
    """A sandbox with the paging corpus and tenant ``acme``, synced."""

    def __init__(self, sandbox: SandboxHandle, config_path: Path, config: Config) -> None:
        self.sandbox, self.config_path, self.config = sandbox, config_path, config

    @asynccontextmanager
    async def client(self) -> AsyncIterator[Client]:
        options = ServerOptions(transport="stdio", tenant="acme", sync=False)
        async with Client(build_server(self.config, options)) as client:
            yield client

    async def sync(self) -> None:
        for tenant in self.config.tenants:
            await sync_tenant(tenant, self.config.data_dir)


def _site(directory: Path, sandbox: SandboxHandle) -> PagedSite:
    config_path = write_config(directory, [("acme", sandbox, ADMIN_KEY)])
    return PagedSite(sandbox, config_path, load_config(config_path))


@pytest.fixture(scope="module")
def paged(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PagedSite]:
    with running_sandbox(_corpus()) as sandbox:
        site = _site(tmp_path_factory.mktemp("paged"), sandbox)
        import asyncio

        asyncio.run(site.sync())
        yield site


@pytest.fixture
def mutable(tmp_path: Path) -> Iterator[PagedSite]:
    with running_sandbox(_corpus()) as sandbox:
        yield _site(tmp_path, sandbox)


async def _pages(
    client: Client, tool: str, arguments: dict[str, Any]
) -> tuple[list[tuple[str, int]], list[CallToolResult]]:
    """Every page of one search, following nextCursor to the end."""
    keys: list[tuple[str, int]] = []
    results: list[CallToolResult] = []
    cursor: str | None = None
    for _ in range(20):
        call = dict(arguments, **({"cursor": cursor} if cursor else {}))
        result = await client.call_tool(tool, call)
        results.append(result)
        content = structured(result)
        keys.extend((hit.get("kind", "work_package"), hit["id"]) for hit in content["results"])
        cursor = content["meta"].get("nextCursor")
        if cursor is None:
            return keys, results
        assert f"cursor {cursor!r}" in text_of(result)
    raise AssertionError("paging did not end")


def _new(wp_id: int, subject: str) -> dict[str, Any]:
    """A new work package (stamped now by the sandbox: the newest of all)."""
    return {"id": wp_id, "project": 1, "subject": subject, "type": 1, "status": 1, "author": 1}


@pytest.mark.parametrize("source", ["index", "live"])
@pytest.mark.parametrize("sort", ["relevance", "updated"])
async def test_pages_hold_every_record_once_in_order(
    paged: PagedSite, source: str, sort: str
) -> None:
    arguments = {"query": "invoice", "source": source, "sort": sort}
    async with paged.client() as client:
        whole = structured(await client.call_tool(SEARCH, {**arguments, "limit": 100}))
        keys, results = await _pages(client, SEARCH, {**arguments, "limit": 4})
    assert [("work_package", hit["id"]) for hit in whole["results"]] == keys
    assert len(keys) == MATCHING and len(set(keys)) == MATCHING
    assert len(results) == 4  # 4 + 4 + 4 + 1


async def test_pages_across_kinds(paged: PagedSite) -> None:
    async with paged.client() as client:
        whole = structured(await client.call_tool("openproject_search", {"query": "invoice"}))
        keys, _ = await _pages(client, "openproject_search", {"query": "invoice", "limit": 5})
    assert [(hit["kind"], hit["id"]) for hit in whole["results"]] == keys
    assert ("wiki_page", 7) in keys


async def test_a_cursor_of_another_search_is_refused(paged: PagedSite) -> None:
    async with paged.client() as client:
        first = structured(await client.call_tool(SEARCH, {"query": "invoice", "limit": 4}))
        cursor = first["meta"]["nextCursor"]
        other = await client.call_tool(SEARCH, {"query": "export", "limit": 4, "cursor": cursor})
        garbage = await client.call_tool(SEARCH, {"query": "invoice", "cursor": "not-a-cursor"})
    assert "another search" in error_of(other)
    assert "nextCursor" in error_of(garbage)


async def test_a_cursor_from_an_older_commit_gives_a_consistent_page_or_a_clear_error(
    mutable: PagedSite,
) -> None:
    await mutable.sync()
    arguments = {"query": "invoice", "sort": "updated", "limit": 4, "source": "index"}
    async with mutable.client() as client:
        first = structured(await client.call_tool(SEARCH, arguments))
        before = structured(await client.call_tool(SEARCH, {**arguments, "limit": 100}))
        cursor = first["meta"]["nextCursor"]
        # A commit that leaves the ranking alone: the next page is served, consistent.
        mutable.sandbox.mutate("upsert", "work_packages", _new(301, "Chore"))
        await mutable.sync()
        second = structured(await client.call_tool(SEARCH, {**arguments, "cursor": cursor}))
        assert [h["id"] for h in second["results"]] == [h["id"] for h in before["results"][4:8]]
        # A commit that puts a new record in front of the shown ones: refused, clearly.
        mutable.sandbox.mutate("upsert", "work_packages", _new(302, "Invoice fix"))
        await mutable.sync()
        stale = await client.call_tool(SEARCH, {**arguments, "cursor": cursor})
    assert "the index changed since this cursor was given" in error_of(stale)


def test_the_cli_pages_with_cursor(paged: PagedSite, capsys: pytest.CaptureFixture[str]) -> None:
    base = ["search", "invoice", "--kind", "work_packages", "--limit", "5", "--json"]
    config = ["--config", str(paged.config_path), "--tenant", "acme"]
    assert cli.main([*base, *config]) == cli.EXIT_OK
    first = json.loads(capsys.readouterr().out)
    cursor = first["meta"]["next_cursor"]
    assert cli.main([*base, "--cursor", cursor, *config]) == cli.EXIT_OK
    second = json.loads(capsys.readouterr().out)
    assert cli.main(["search", "invoice", "--kind", "work_packages", "--json", *config]) == 0
    whole = [hit["id"] for hit in json.loads(capsys.readouterr().out)["results"]]
    assert [hit["id"] for hit in first["results"] + second["results"]] == whole[:10]


async def test_the_work_package_list_pages_with_cursor(paged: PagedSite) -> None:
    tool = "openproject_list_work_packages"
    async with paged.client() as client:
        whole = structured(await client.call_tool(tool, {"status": "all", "limit": 100}))
        keys, results = await _pages(client, tool, {"status": "all", "limit": 4})
    assert [("work_package", hit["id"]) for hit in whole["results"]] == keys
    assert len(keys) == MATCHING + 1 and len(results) == 4
