"""Compact answers: sizes on the sample corpus, no nulls, one key style, nothing said twice."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from tests.tools.conftest import SampleSite, structured, text_of, tools_client
from tests.tools.sample_facts import corpus

SEARCH = "openproject_search_work_packages"
CAMEL = re.compile(r"^[a-z][a-zA-Z0-9]*$")
MAX_TOOLS_LIST = 15_000
MAX_STRUCTURED = 8 * 1024
MAX_TEXT = 4 * 1024


def _size(content: dict[str, Any]) -> int:
    """Bytes of the structured content as a client receives it (compact UTF-8 JSON)."""
    return len(json.dumps(content, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))


def _problems(value: Any, path: str = "$") -> list[str]:
    """Nulls, empty lists and non-camelCase keys anywhere in *value*."""
    found: list[str] = []
    if isinstance(value, dict):
        for key, item in value.items():
            if path.endswith(".fields") or path.endswith(".documents"):
                pass  # keys that are data (field names, kinds), not members
            elif not CAMEL.match(key):
                found.append(f"{path}.{key}: not camelCase")
            if item is None:
                found.append(f"{path}.{key}: null")
            elif item == [] and key != "results":
                found.append(f"{path}.{key}: empty list")
            found.extend(_problems(item, f"{path}.{key}"))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found.extend(_problems(item, f"{path}[{index}]"))
    return found


async def test_tools_list_fits_the_budget(sample_site: SampleSite) -> None:
    async with tools_client(sample_site, "admin") as client:
        listed = await client.list_tools()
    wire = json.dumps(listed.model_dump(mode="json", by_alias=True, exclude_none=True))
    assert len(wire) <= MAX_TOOLS_LIST, len(wire)
    assert len(listed.tools) == 11  # the budget holds with every tool listed


async def test_a_twenty_hit_search_fits_the_budget(sample_site: SampleSite) -> None:
    async with tools_client(sample_site, "admin") as client:
        result = await client.call_tool(SEARCH, {"query": "checkout", "limit": 20})
    content = structured(result)
    assert len(content["results"]) == 20
    assert _size(content) <= MAX_STRUCTURED, _size(content)
    assert len(text_of(result).encode("utf-8")) <= MAX_TEXT, len(text_of(result))


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        (SEARCH, {"query": "checkout", "limit": 20}),
        (SEARCH, {"query": "checkout", "limit": 5, "detail": "full"}),
        (SEARCH, {"limit": 5}),
        ("openproject_search_meetings", {"query": "hiring plan", "detail": "full"}),
        ("openproject_search_wiki_pages", {"query": "onboarding"}),
        ("openproject_list_work_packages", {"status": "all", "detail": "full"}),
        ("openproject_get_work_package", {"id": 1002}),
        ("openproject_get_meeting", {"id": 1}),
        ("openproject_lookup", {"kind": "users"}),
        ("openproject_index_status", {}),
    ],
)
async def test_no_nulls_no_empty_lists_one_key_style(
    sample_site: SampleSite, tool: str, arguments: dict[str, Any]
) -> None:
    async with tools_client(sample_site, "admin") as client:
        result = await client.call_tool(tool, arguments)
    assert _problems(structured(result)) == []


async def test_nothing_is_said_twice(sample_site: SampleSite) -> None:
    async with tools_client(sample_site, "admin") as client:
        result = await client.call_tool(SEARCH, {"query": "checkout", "limit": 20})
    for hit in structured(result)["results"]:
        assert hit.get("snippet") != hit["title"]
        for comment in hit.get("matchedComments", []):
            assert comment.get("snippet") is None or comment["snippet"] != hit.get("snippet")
        assert "matches" not in hit and "attributes" not in hit  # only at detail full
    text = text_of(result)
    for hit in structured(result)["results"]:
        assert text.count(f"“{hit['title']}”") == 0  # the title is not repeated as a snippet


async def test_detail_full_adds_scores_ids_and_people(sample_site: SampleSite) -> None:
    async with tools_client(sample_site, "admin") as client:
        brief = await client.call_tool(SEARCH, {"query": "checkout", "limit": 3})
        full = await client.call_tool(SEARCH, {"query": "checkout", "limit": 3, "detail": "full"})
    assert [h["id"] for h in structured(brief)["results"]] == [
        h["id"] for h in structured(full)["results"]
    ]
    first = structured(full)["results"][0]
    assert first["matches"][0]["field"] == "subject" and first["matches"][0]["score"] > 0
    assert {"statusId", "typeId", "authorName", "projectId"} <= set(first["attributes"])
    assert structured(full)["meta"]["effectiveQuery"] == "checkout"
    assert "effectiveQuery" not in structured(brief)["meta"]


async def test_the_listing_has_no_scores_or_matches(sample_site: SampleSite) -> None:
    async with tools_client(sample_site, "admin") as client:
        listing = await client.call_tool("openproject_list_work_packages", {"limit": 5})
    for hit in structured(listing)["results"]:
        assert "score" not in hit and "matches" not in hit and "matchedFields" not in hit
    assert "(0.00" not in text_of(listing) and "score" not in text_of(listing)


async def test_a_zero_hit_answer_keeps_an_empty_result_list(sample_site: SampleSite) -> None:
    async with tools_client(sample_site, "admin") as client:
        result = await client.call_tool(SEARCH, {"query": "zzqxv", "fallback": False})
    content = structured(result)
    assert content["results"] == [] and content["meta"]["total"] == 0
    assert content["meta"]["degraded"] is False  # "nothing matched" is said, not implied


async def test_a_meeting_hit_says_when_it_starts(sample_site: SampleSite) -> None:
    async with tools_client(sample_site, "admin") as client:
        result = await client.call_tool("openproject_search_meetings", {"limit": 3})
    starts = {m["id"]: m["startTime"] for m in corpus()["meetings"]}
    for hit in structured(result)["results"]:
        assert hit["startTime"][:16] == starts[hit["id"]].replace("Z", "")[:16]
        assert starts[hit["id"]][:10] in text_of(result)
