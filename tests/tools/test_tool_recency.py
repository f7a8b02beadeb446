"""Recency: an empty query lists the newest records; update windows and sort by update time."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from tests.tools.conftest import SampleSite, error_of, structured, text_of, tools_client
from tests.tools.sample_facts import corpus, newest_first, updated, work_packages

SEARCH = "openproject_search_work_packages"


async def _call(site: SampleSite, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    async with tools_client(site, "admin") as client:
        return structured(await client.call_tool(tool, arguments))


@pytest.mark.parametrize("source", ["index", "live"])
async def test_an_empty_query_lists_the_most_recently_updated(
    sample_site: SampleSite, source: str
) -> None:
    answer = await _call(sample_site, SEARCH, {"limit": 10, "source": source})
    assert [item["id"] for item in answer["results"]] == newest_first(work_packages())[:10]
    assert all("score" not in item for item in answer["results"])  # unranked: no scores


@pytest.mark.parametrize("source", ["index", "live"])
@pytest.mark.parametrize(
    ("tool", "table"),
    [("openproject_search_meetings", "meetings"), ("openproject_search_wiki_pages", "wiki_pages")],
)
async def test_other_kinds_list_newest_first(
    sample_site: SampleSite, tool: str, table: str, source: str
) -> None:
    answer = await _call(sample_site, tool, {"limit": 5, "source": source})
    assert [item["id"] for item in answer["results"]] == newest_first(corpus()[table])[:5]


@pytest.mark.parametrize("source", ["index", "live"])
async def test_an_update_window_keeps_only_records_inside_it(
    sample_site: SampleSite, source: str
) -> None:
    after, before = "2026-05-01", "2026-07-01T00:00:00Z"
    low = datetime(2026, 5, 1, tzinfo=UTC)
    high = datetime(2026, 7, 1, tzinfo=UTC)
    inside = [wp for wp in work_packages() if low <= updated(wp) < high]
    answer = await _call(
        sample_site,
        SEARCH,
        {"updatedAfter": after, "updatedBefore": before, "limit": 100, "source": source},
    )
    assert [item["id"] for item in answer["results"]] == newest_first(inside)
    assert len(inside) >= 5


async def test_a_window_with_a_query_and_an_offset(sample_site: SampleSite) -> None:
    # 02:00+02:00 is midnight UTC: the same window as the dates above.
    arguments = {"query": "checkout", "limit": 100, "source": "index"}
    everything = await _call(sample_site, SEARCH, arguments)
    windowed = await _call(
        sample_site, SEARCH, {**arguments, "updatedAfter": "2026-01-01T02:00:00+02:00"}
    )
    low = datetime(2026, 1, 1, tzinfo=UTC)
    times = {item["id"]: item["updatedAt"] for item in everything["results"]}
    expected = [i for i in times if datetime.fromisoformat(times[i].replace("Z", "+00:00")) >= low]
    assert [item["id"] for item in windowed["results"]] == expected
    assert 0 < len(expected) < len(times)


@pytest.mark.parametrize("source", ["index", "live"])
async def test_sort_updated_orders_the_matches_newest_first(
    sample_site: SampleSite, source: str
) -> None:
    arguments = {"query": "checkout flow", "limit": 100, "source": source}
    relevance = await _call(sample_site, SEARCH, arguments)
    by_time = await _call(sample_site, SEARCH, {**arguments, "sort": "updated"})
    matched = [item["id"] for item in relevance["results"]]
    stamps = [item["updatedAt"] for item in by_time["results"]]
    assert sorted(item["id"] for item in by_time["results"]) == sorted(matched)
    assert stamps == sorted(stamps, reverse=True)
    assert [item["id"] for item in by_time["results"]] != matched  # the order did change
    assert by_time["meta"]["sort"] == "updated"


async def test_the_listing_tool_takes_an_update_window(sample_site: SampleSite) -> None:
    answer = await _call(
        sample_site,
        "openproject_list_work_packages",
        {"status": "all", "updatedAfter": "2026-07-01", "limit": 100},
    )
    low = datetime(2026, 7, 1, tzinfo=UTC)
    inside = [wp for wp in work_packages() if updated(wp) >= low]
    assert {item["id"] for item in answer["results"]} == {wp["id"] for wp in inside}
    assert inside


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ({"updatedAfter": "last week"}, "updatedAfter: 'last week' is not an ISO date"),
        ({"updatedBefore": "2026-13-01"}, "updatedBefore: '2026-13-01' is not an ISO date"),
        (
            {"updatedAfter": "2026-05-01", "updatedBefore": "2026-04-01"},
            "must be earlier than updatedBefore",
        ),
    ],
)
async def test_a_bad_window_is_refused_with_what_to_change(
    sample_site: SampleSite, arguments: dict[str, Any], expected: str
) -> None:
    async with tools_client(sample_site, "admin") as client:
        result = await client.call_tool(SEARCH, arguments)
    assert expected in error_of(result)


async def test_the_text_says_how_the_list_is_ordered(sample_site: SampleSite) -> None:
    async with tools_client(sample_site, "admin") as client:
        listing = await client.call_tool(SEARCH, {"limit": 3})
        ranked = await client.call_tool(SEARCH, {"query": "checkout", "limit": 3})
    assert "most recently updated first" in text_of(listing).splitlines()[0]
    assert "(0.00" not in text_of(listing)
    assert "best first" in text_of(ranked).splitlines()[0]
