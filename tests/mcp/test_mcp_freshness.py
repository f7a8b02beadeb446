"""A stale or missing index: the tools answer from the live path and say so; errors teach."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from mcp import Client
from tests.mcp.conftest import Site
from tests.support.config_files import write_config
from tests.support.corpora import BOB_KEY, BOB_WP
from tests.support.mcp_clients import error_text, result_ids, structured

from opindex.config import Config, load_config
from opindex.mcp.server import ServerOptions, build_server
from opindex.service import Service

OPTIONS = ServerOptions(transport="stdio", tenant="bob", sync=False)


async def test_missing_index_answers_live_and_says_so(site: Site, tmp_path: Path) -> None:
    config = load_config(write_config(tmp_path, [("bob", site.sandbox, BOB_KEY)]))
    async with Client(build_server(config, OPTIONS)) as client:
        answer = await client.call_tool(
            "openproject_search_work_packages", {"query": "quartrly budget review"}
        )
        status = await client.call_tool("openproject_index_status", {})
        forced = await client.call_tool(
            "openproject_search_work_packages", {"query": "budget", "source": "index"}
        )
    meta = structured(answer)["meta"]
    assert (meta["source"], meta["indexState"]) == ("live", "missing")
    assert result_ids(answer) == [BOB_WP]
    assert "answered live from OpenProject (no index yet)" in answer.content[0].text  # type: ignore[union-attr]
    assert structured(status)["tenants"][0]["state"] == "missing"
    assert "opindex sync" in error_text(forced)


async def test_stale_index_answers_live_and_says_so(site: Site) -> None:
    def two_days_later(config: Config) -> Service:
        return Service.from_config(config, clock=lambda: datetime.now(UTC) + timedelta(days=2))

    server = build_server(site.config, OPTIONS, service_factory=two_days_later)
    async with Client(server) as client:
        auto = await client.call_tool("openproject_search_meetings", {"query": "budget aproval"})
        index = await client.call_tool(
            "openproject_search_meetings", {"query": "budget aproval", "source": "index"}
        )
    auto_meta = structured(auto)["meta"]
    assert (auto_meta["source"], auto_meta["indexState"]) == ("live", "stale")
    assert "the index is stale" in auto.content[0].text  # type: ignore[union-attr]
    index_meta = structured(index)["meta"]
    assert (index_meta["source"], index_meta["indexState"]) == ("index", "stale")
    assert result_ids(auto) == result_ids(index)


async def test_rejected_credential_tells_the_model_what_to_do(site: Site, tmp_path: Path) -> None:
    wrong_key = "key-that-openproject-does-not-know"
    config = load_config(write_config(tmp_path, [("bob", site.sandbox, wrong_key)]))
    async with Client(build_server(config, OPTIONS)) as client:
        answer = await client.call_tool("openproject_search_wiki_pages", {"query": "budget"})
    text = error_text(answer)
    assert "credential was rejected" in text
    assert "ask the user" in text.lower()
    assert wrong_key not in text
