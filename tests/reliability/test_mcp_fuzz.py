"""Property-based fuzzing of every MCP tool's arguments through the real MCP SDK client.

Whatever the arguments, a call ends in an error result (with a message, no traceback)
or in results that respect the bounds and hold only what the tenant may see; the server
keeps answering afterwards. Also: the documented bounds on query length and limit.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp.types import CallToolResult
from tests.reliability.fuzz_values import arguments_for
from tests.support.config_files import write_config
from tests.support.corpora import BOB, PROJECT_MARKERS, expected_all
from tests.support.mcp_clients import (
    PortalClient,
    error_text,
    in_process_client,
    result_ids,
    result_text,
    structured,
)
from tests.support.sandbox import MEMBER_KEY, running_sandbox

from opindex.config import load_config
from opindex.envelope import MAX_LIMIT, MAX_QUERY_LENGTH
from opindex.mcp.tools import TOOL_NAMES
from opindex.sync import sync_tenant

TOOL_KINDS = {
    "openproject_search_work_packages": "work_package",
    "openproject_search_meetings": "meeting",
    "openproject_search_wiki_pages": "wiki_page",
    "openproject_list_work_packages": "work_package",
    "openproject_get_work_package": "work_package",
    "openproject_get_meeting": "meeting",
    "openproject_get_wiki_page": "wiki_page",
}
SEARCHES = [name for name in TOOL_NAMES if name.startswith("openproject_search_")]
FUZZ = settings(
    max_examples=40,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@pytest.fixture(scope="module")
def site(
    corpus: dict[str, Any], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[PortalClient, dict[str, set[int]]]]:
    """Tenant acme (bob) synced from a sandbox; an in-process MCP client for it."""
    directory = tmp_path_factory.mktemp("fuzz")
    with running_sandbox(corpus, wiki_list=True) as sandbox:
        config = load_config(write_config(directory, [("acme", sandbox, MEMBER_KEY)]))
        asyncio.run(sync_tenant(config.tenants[0], config.data_dir))
        with in_process_client(config) as client:
            yield client, expected_all(corpus, BOB)


def check_answer(
    name: str, arguments: dict[str, Any], result: CallToolResult, visible: dict[str, set[int]]
) -> None:
    """An error with a useful message, or results within bounds and visibility."""
    assert isinstance(result, CallToolResult)
    text = result_text(result)
    assert MEMBER_KEY not in text
    if result.is_error:
        assert text.strip(), f"{name}: an error result without a message"
        assert "Traceback" not in text and len(text) < 4000, text[:500]
        return
    data = structured(result)
    kind = TOOL_KINDS.get(name)
    if name in SEARCHES or name == "openproject_list_work_packages":
        ids = [int(item["id"]) for item in data["results"]]
        assert len(ids) <= MAX_LIMIT
        limit = arguments.get("limit")
        if isinstance(limit, int) and not isinstance(limit, bool):
            assert len(ids) <= limit
        assert kind is not None and set(ids) <= visible[kind], f"{name} leaked {ids}"
    elif kind is not None:  # get_*
        record_id = int(data["record"]["id"])
        assert record_id == arguments["id"] and record_id in visible[kind]


def assert_still_answering(client: PortalClient, visible: dict[str, set[int]]) -> None:
    marker = PROJECT_MARKERS[1]
    result = client.call("openproject_search_work_packages", {"query": marker, "limit": 50})
    assert set(result_ids(result)) == {i for i in visible["work_package"] if i % 4 == 0}


@pytest.mark.parametrize("name", TOOL_NAMES)
def test_fuzzed_arguments_never_crash_a_tool(
    site: tuple[PortalClient, dict[str, set[int]]], name: str
) -> None:
    client, visible = site
    schema = client.tool_schemas()[name]

    @FUZZ
    @given(arguments=arguments_for(schema))
    def fuzz(arguments: dict[str, Any]) -> None:
        check_answer(name, arguments, client.call(name, arguments), visible)

    fuzz()
    assert_still_answering(client, visible)


@settings(FUZZ, max_examples=8)
@given(query=st.text(min_size=1, max_size=60), source=st.sampled_from(["index", "live"]))
def test_any_text_query_is_answered_on_both_paths(
    site: tuple[PortalClient, dict[str, set[int]]], query: str, source: str
) -> None:
    client, visible = site
    for name in SEARCHES:
        for mode in ("fuzzy", "exact"):
            arguments = {"query": query, "matchMode": mode, "source": source}
            result = client.call(name, arguments)
            check_answer(name, arguments, result, visible)
            assert not result.is_error, result_text(result)


def test_query_length_is_bounded_and_the_bound_is_named(
    site: tuple[PortalClient, dict[str, set[int]]],
) -> None:
    client, visible = site
    longest = ("certificate " * MAX_QUERY_LENGTH)[:MAX_QUERY_LENGTH]
    for name in SEARCHES:
        assert not client.call(name, {"query": longest}).is_error
        message = error_text(client.call(name, {"query": longest + "x"}))
        assert "query" in message and str(MAX_QUERY_LENGTH) in message
        assert len(message) < 1000  # the rejected query is not echoed in full
    for name, argument in (
        ("openproject_list_work_package_activities", "query"),
        ("openproject_list_work_packages", "subject"),
    ):
        arguments: dict[str, Any] = {argument: "y" * (MAX_QUERY_LENGTH + 1)}
        if name == "openproject_list_work_package_activities":
            arguments["workPackageId"] = 1
        assert str(MAX_QUERY_LENGTH) in error_text(client.call(name, arguments))
    assert_still_answering(client, visible)


@pytest.mark.parametrize("name", [*SEARCHES, "openproject_list_work_packages"])
def test_result_size_is_bounded_by_the_limit(
    site: tuple[PortalClient, dict[str, set[int]]], name: str
) -> None:
    client, visible = site
    everything = {"status": "all"} if "work_packages" in name else {}
    full = client.call(name, {"limit": MAX_LIMIT, **everything})
    kind = TOOL_KINDS[name]
    assert set(result_ids(full)) == visible[kind]  # the bound is above this corpus
    assert len(result_ids(client.call(name, {"limit": 2, **everything}))) == 2
    for limit in (0, -1, MAX_LIMIT + 1, 10**18):
        message = error_text(client.call(name, {"limit": limit, **everything}))
        assert "limit" in message and str(MAX_LIMIT if limit > 0 else 1) in message


def test_a_huge_argument_object_is_refused_in_one_message(
    site: tuple[PortalClient, dict[str, set[int]]], tmp_path: Path
) -> None:
    client, visible = site
    arguments = {f"extra{i}": "z" * 1000 for i in range(50)}
    message = error_text(client.call("openproject_search_wiki_pages", arguments))
    assert "unknown argument" in message and len(message) < 20_000
    assert_still_answering(client, visible)
