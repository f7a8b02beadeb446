"""End to end over streamable HTTP: tenants chosen by credential, isolation, unknown keys."""

from __future__ import annotations

import base64
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.mcp.conftest import Site
from tests.support.config_files import write_config
from tests.support.corpora import (
    BOB_IDS,
    BOB_KEY,
    BOB_MEETING,
    BOB_WIKI,
    BOB_WP,
    CAROL_IDS,
    CAROL_KEY,
    CAROL_WP,
)
from tests.support.corpus_builder import ADMIN_KEY
from tests.support.mcp_clients import error_text, http_client, result_ids, structured
from tests.support.processes import http_server_process

from opindex.mcp.tools import TOOL_NAMES

SEARCHES = (
    ("openproject_search_work_packages", {"query": "quarterly budget", "status": "all"}),
    ("openproject_search_meetings", {"query": "quarterly budget"}),
    ("openproject_search_wiki_pages", {"query": "quarterly budget"}),
)


@pytest.fixture(scope="module")
def url(site: Site) -> Iterator[str]:
    """``opindex serve --transport http`` for tenants bob and carol (no background sync)."""
    with http_server_process(site.config_path, "--no-sync") as endpoint:
        yield endpoint


def bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


async def test_tools_list_and_every_tool_over_http(url: str, site: Site) -> None:
    async with http_client(url, bearer(BOB_KEY)) as client:
        listed = await client.list_tools()
        assert {tool.name for tool in listed.tools} == set(TOOL_NAMES)
        schemas = {tool.name: tool.input_schema["properties"] for tool in listed.tools}
        assert schemas["openproject_search_meetings"]["matchMode"]["enum"] == ["fuzzy", "exact"]
        assert schemas["openproject_search_meetings"]["matchMode"]["default"] == "fuzzy"
        site.sandbox.reset_stats()
        invalid = await client.call_tool(
            "openproject_search_meetings", {"query": "budget", "matchMode": "loose"}
        )
        assert "'fuzzy' or 'exact'" in error_text(invalid)
        assert site.sandbox.stats()["requests"] == 0
        search = await client.call_tool(
            "openproject_search_work_packages", {"query": "budgte reveiw", "matchMode": "fuzzy"}
        )
        exact = await client.call_tool(
            "openproject_search_meetings", {"query": "Budget approval", "matchMode": "exact"}
        )
        activities = await client.call_tool(
            "openproject_list_work_package_activities", {"workPackageId": BOB_WP}
        )
        listing = await client.call_tool("openproject_list_work_packages", {"status": "all"})
        reads = [
            await client.call_tool(name, {"id": record_id})
            for name, record_id in (
                ("openproject_get_work_package", BOB_WP),
                ("openproject_get_meeting", BOB_MEETING),
                ("openproject_get_wiki_page", BOB_WIKI),
            )
        ]
        status = await client.call_tool("openproject_index_status", {})
        everything = await client.call_tool(
            "openproject_search", {"query": "budget", "kinds": ["meeting", "wiki_page"]}
        )
    assert {hit["kind"] for hit in structured(everything)["results"]} == {"meeting", "wiki_page"}
    assert result_ids(search)[0] == BOB_WP
    assert structured(search)["meta"]["matchMode"] == "fuzzy"
    assert result_ids(exact) == [BOB_MEETING]
    assert structured(exact)["meta"]["matchMode"] == "exact"
    assert [item["id"] for item in structured(activities)["results"]] == [701, 702]
    assert result_ids(listing) == [BOB_WP]
    assert [structured(read)["record"]["id"] for read in reads] == [BOB_WP, BOB_MEETING, BOB_WIKI]
    assert [tenant["tenant"] for tenant in structured(status)["tenants"]] == ["bob"]


async def test_two_tenants_never_see_each_others_records(url: str) -> None:
    seen: dict[str, set[int]] = {}
    for name, key, header in (
        ("bob", BOB_KEY, bearer(BOB_KEY)),
        ("carol", CAROL_KEY, {"X-OpenProject-Api-Key": CAROL_KEY}),
    ):
        found: set[int] = set()
        async with http_client(url, header) as client:
            for tool, arguments in SEARCHES:
                for source in ("index", "live"):
                    answer = await client.call_tool(tool, {**arguments, "source": source})
                    assert structured(answer)["meta"]["tenant"] == name
                    assert structured(answer)["meta"]["source"] == source
                    found |= set(result_ids(answer))
            listing = await client.call_tool("openproject_list_work_packages", {"status": "all"})
            found |= set(result_ids(listing))
            other_wp = CAROL_WP if name == "bob" else BOB_WP
            refused = await client.call_tool("openproject_get_work_package", {"id": other_wp})
            assert "Not found" in error_text(refused)
            assert key not in error_text(refused)
        seen[name] = found
    assert seen["bob"] == BOB_IDS
    assert seen["carol"] == CAROL_IDS


async def test_unknown_or_missing_credential_gets_a_clear_error(url: str, site: Site) -> None:
    site.sandbox.reset_stats()
    async with http_client(url, bearer(ADMIN_KEY)) as client:
        unknown = await client.call_tool("openproject_search_work_packages", {"query": "budget"})
        status = await client.call_tool("openproject_index_status", {})
    async with http_client(url) as client:
        missing = await client.call_tool("openproject_search_meetings", {"query": "budget"})
    assert site.sandbox.stats()["requests"] == 0
    assert "matches no tenant" in error_text(unknown)
    assert "matches no tenant" in error_text(status)
    assert ADMIN_KEY not in error_text(unknown)
    assert "X-OpenProject-Api-Key" in error_text(missing)


async def test_unknown_credential_searches_live_when_the_server_allows_it(
    site: Site, tmp_path: Path
) -> None:
    config_path = write_config(
        tmp_path,
        [("bob", site.sandbox, BOB_KEY)],
        server={"allow_unknown_credentials_live": True},
    )
    with http_server_process(config_path, "--no-sync") as endpoint:
        async with http_client(endpoint, bearer(ADMIN_KEY)) as client:
            auto = await client.call_tool(
                "openproject_search_work_packages", {"query": "quarterly budget", "status": "all"}
            )
            forced_index = await client.call_tool(
                "openproject_search_work_packages", {"query": "budget", "source": "index"}
            )
            read = await client.call_tool("openproject_get_work_package", {"id": BOB_WP})
    meta = structured(auto)["meta"]
    assert meta["source"] == "live"
    assert meta["tenant"] != "bob"
    assert set(result_ids(auto)) == {BOB_WP, CAROL_WP}  # the admin's own view, read live
    assert "source 'auto' or 'live'" in error_text(forced_index)
    assert "only the search tools" in error_text(read)
    assert not (tmp_path / "data").exists()  # nothing was synced, no index was opened


async def test_openprojects_own_basic_header_selects_the_tenant(url: str) -> None:
    encoded = base64.b64encode(f"apikey:{CAROL_KEY}".encode()).decode()
    async with http_client(url, {"Authorization": f"Basic {encoded}"}) as client:
        answer = await client.call_tool(*SEARCHES[0])
    assert structured(answer)["meta"]["tenant"] == "carol"
    assert set(result_ids(answer)) <= CAROL_IDS and result_ids(answer)
