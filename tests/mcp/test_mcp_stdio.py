"""End to end over stdio: the real MCP client against ``python -m opindex serve`` (subprocess)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from mcp import Client, StdioServerParameters
from tests.mcp.conftest import Site
from tests.support.config_files import write_config
from tests.support.corpora import BOB_KEY, BOB_MEETING, BOB_WIKI, BOB_WP, CAROL_IDS, OPS
from tests.support.mcp_clients import error_text, initialize_request, result_ids, structured
from tests.support.output_lines import OutputLines
from tests.support.processes import opindex_argv, subprocess_env

from opindex.mcp.tools import TOOL_NAMES

SEARCH_TOOLS = (
    "openproject_search_work_packages",
    "openproject_search_meetings",
    "openproject_search_wiki_pages",
)


@asynccontextmanager
async def stdio_client(config_path: Path, *extra: str) -> AsyncIterator[Client]:
    """The MCP client talking to a ``serve`` subprocess over its stdin/stdout."""
    parameters = StdioServerParameters(
        command=sys.executable,
        args=["-m", "opindex", "serve", "--config", str(config_path), *extra],
        env=subprocess_env(),
    )
    async with Client(parameters) as client:
        yield client


async def test_tools_list_shows_every_tool_with_its_schema(site: Site) -> None:
    async with stdio_client(site.config_path, "--tenant", "bob", "--no-sync") as client:
        listed = await client.list_tools()
    tools = {tool.name: tool for tool in listed.tools}
    assert set(tools) == set(TOOL_NAMES)
    for tool in tools.values():
        assert tool.annotations is not None and tool.annotations.read_only_hint is True
        assert tool.description and len(tool.description) > 40
        assert tool.output_schema is not None
    for name in (*SEARCH_TOOLS, "openproject_list_work_package_activities"):
        match_mode = tools[name].input_schema["properties"]["matchMode"]
        assert match_mode["enum"] == ["fuzzy", "exact"]
        assert match_mode["default"] == "fuzzy"
        assert "typo" in match_mode["description"]
    for name in SEARCH_TOOLS:
        properties = tools[name].input_schema["properties"]
        assert {"query", "limit", "project", "source", "fallback"} <= set(properties)
        assert properties["source"]["enum"] == ["auto", "index", "live"]
        assert "typo" in (tools[name].description or "")
    work_packages = tools["openproject_search_work_packages"].input_schema["properties"]
    assert {"status", "type", "assignee"} <= set(work_packages)
    assert "matchMode" not in tools["openproject_list_work_packages"].input_schema["properties"]
    activities = tools["openproject_list_work_package_activities"].input_schema
    assert activities["required"] == ["workPackageId"]


async def test_every_tool_answers_real_arguments(site: Site) -> None:
    calls: list[tuple[str, dict[str, Any]]] = [
        ("openproject_search_work_packages", {"query": "quartely budgte", "status": "all"}),
        ("openproject_search_meetings", {"query": "budget approval", "project": OPS}),
        ("openproject_search_wiki_pages", {"query": "how is the budget prepared"}),
    ]
    async with stdio_client(site.config_path, "--tenant", "bob", "--no-sync") as client:
        answers = [await client.call_tool(name, arguments) for name, arguments in calls]
        activities = await client.call_tool(
            "openproject_list_work_package_activities",
            {"workPackageId": BOB_WP, "query": "flamingo dashbord"},
        )
        listing = await client.call_tool(
            "openproject_list_work_packages", {"project": OPS, "status": "all", "limit": 5}
        )
        work_package = await client.call_tool("openproject_get_work_package", {"id": BOB_WP})
        meeting = await client.call_tool("openproject_get_meeting", {"id": BOB_MEETING})
        wiki_page = await client.call_tool("openproject_get_wiki_page", {"id": BOB_WIKI})
        status = await client.call_tool("openproject_index_status", {})
        everything = await client.call_tool("openproject_search", {"query": "quarterly budget"})

    found = structured(everything)
    kinds = {(hit["kind"], hit["id"]) for hit in found["results"]}
    assert {("work_package", BOB_WP), ("meeting", BOB_MEETING), ("wiki_page", BOB_WIKI)} <= kinds
    assert not {record_id for _, record_id in kinds} & CAROL_IDS
    assert {answer["kind"] for answer in found["meta"]["kinds"]} >= {"news", "attachment"}
    assert "across" in everything.content[0].text  # type: ignore[union-attr]
    expected_first = [BOB_WP, BOB_MEETING, BOB_WIKI]
    for answer, first in zip(answers, expected_first, strict=True):
        envelope = structured(answer)
        assert result_ids(answer)[0] == first
        assert not set(result_ids(answer)) & CAROL_IDS
        assert envelope["meta"]["source"] == "index"
        assert envelope["meta"]["tenant"] == "bob"
        assert "answered from the fresh index" in answer.content[0].text  # type: ignore[union-attr]
    comments = structured(activities)
    assert comments["ranked"] is True
    assert [item["id"] for item in comments["results"]] == [701]
    assert result_ids(listing) == [BOB_WP]
    assert structured(work_package)["record"]["title"].startswith("Quarterly budget review")
    assert "flamingo" in work_package.content[0].text  # type: ignore[union-attr]
    assert structured(meeting)["record"]["id"] == BOB_MEETING
    assert structured(wiki_page)["record"]["id"] == BOB_WIKI
    tenants = structured(status)["tenants"]
    assert [tenant["tenant"] for tenant in tenants] == ["bob"]
    assert tenants[0]["state"] == "fresh"
    documents = tenants[0]["documents"]
    content = {key: documents[key] for key in ("work_packages", "wiki_pages", "meetings")}
    assert content == {"work_packages": 1, "wiki_pages": 1, "meetings": 1}
    assert documents["projects"] >= 1


async def test_invalid_match_mode_is_an_error_result_and_sends_no_request(site: Site) -> None:
    async with stdio_client(site.config_path, "--tenant", "bob", "--no-sync") as client:
        site.sandbox.reset_stats()
        bad_mode = await client.call_tool(
            "openproject_search_work_packages", {"query": "budget", "matchMode": "approximate"}
        )
        bad_limit = await client.call_tool(
            "openproject_search_meetings", {"query": "budget", "limit": 0, "source": "live"}
        )
        misspelt = await client.call_tool(
            "openproject_search_wiki_pages", {"query": "budget", "matchmode": "exact"}
        )
        missing = await client.call_tool("openproject_list_work_package_activities", {})
        stats = site.sandbox.stats()
    assert stats["requests"] == 0, stats
    text = error_text(bad_mode)
    assert "matchMode" in text and "'fuzzy' or 'exact'" in text and "'approximate'" in text
    assert "limit" in error_text(bad_limit) and "greater than or equal to 1" in error_text(
        bad_limit
    )
    assert "did you mean 'matchMode'" in error_text(misspelt)
    assert "workPackageId: required" in error_text(missing)


def test_stdio_with_several_tenants_requires_choosing_one(site: Site) -> None:
    completed = subprocess.run(
        opindex_argv("serve", "--config", str(site.config_path)),
        capture_output=True,
        text=True,
        timeout=120,
        env=subprocess_env(),
        stdin=subprocess.DEVNULL,
    )
    assert completed.returncode == 2
    assert completed.stdout == ""
    assert "several tenants are configured (bob, carol)" in completed.stderr
    assert "--tenant NAME" in completed.stderr


def test_stdout_carries_nothing_but_protocol(site: Site, tmp_path: Path) -> None:
    """Debug logging on, the daemon syncing a missing index at start: stdout stays JSON-RPC."""
    config_path = write_config(tmp_path, [("bob", site.sandbox, BOB_KEY)])
    messages = [
        initialize_request("raw-test"),
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        {
            "jsonrpc": "2.0",
            "id": 3,
            "method": "tools/call",
            "params": {"name": "openproject_index_status", "arguments": {}},
        },
    ]
    stderr_path = tmp_path / "stderr.txt"
    with stderr_path.open("w", encoding="utf-8") as stderr_file:
        process = subprocess.Popen(
            opindex_argv("--verbose", "serve", "--config", str(config_path)),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr_file,
            text=True,
            env=subprocess_env(),
        )
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write("".join(json.dumps(message) + "\n" for message in messages))
    process.stdin.flush()
    output = OutputLines(process.stdout)
    output.until(lambda line: '"id":3' in line.replace(" ", ""), timeout=120)
    process.stdin.close()
    lines = output.rest(timeout=60).splitlines()
    assert process.wait(timeout=60) == 0
    stderr = stderr_path.read_text(encoding="utf-8")
    replies = [json.loads(line) for line in lines if line.strip()]
    assert all(reply.get("jsonrpc") == "2.0" for reply in replies), lines
    assert sorted(reply["id"] for reply in replies if "id" in reply) == [1, 2, 3]
    assert "DEBUG" in stderr
    assert BOB_KEY not in "".join(lines) + stderr
