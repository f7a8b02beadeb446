"""Every word accounted for: matched words per hit, unmatched words, near matches, ids, links."""

from __future__ import annotations

from typing import Any

import pytest
from tests.tools.conftest import SampleSite, structured, text_of, tools_client
from tests.tools.sample_facts import corpus, newest_first

SEARCH = "openproject_search_work_packages"


async def _call(
    site: SampleSite, tool: str, arguments: dict[str, Any]
) -> tuple[str, dict[str, Any]]:
    async with tools_client(site, "juergen") as client:
        result = await client.call_tool(tool, arguments)
    return text_of(result), structured(result)


@pytest.mark.parametrize("source", ["index", "live"])
async def test_a_word_nothing_matched_is_named_first(sample_site: SampleSite, source: str) -> None:
    text, content = await _call(
        sample_site, SEARCH, {"query": "certificate renewal zqxjv", "source": source}
    )
    assert content["results"], "the other words still find the certificate work packages"
    first = text.splitlines()[0]
    assert first.startswith("Not every word matched: no work package contains 'zqxjv'"), first
    meta = content["meta"]
    assert meta["unmatchedWords"] == ["zqxjv"]
    assert meta["notice"] == first
    assert "fallbackStrategy" not in meta and meta["wildcardFallback"] is False


async def test_every_hit_lists_its_words_and_how_at_detail_full(sample_site: SampleSite) -> None:
    _, content = await _call(
        sample_site, SEARCH, {"query": "certificate renewal zqxjv", "detail": "full"}
    )
    for hit in content["results"]:
        words = hit["matchedWords"]
        assert "certificate" in words, hit
        assert not any(word.startswith("zqxjv") for word in words), hit
        assert set(words) - {"certificate", "renewal"} <= {"renewal: typo 'renew'"}, words


async def test_a_near_match_is_labelled(sample_site: SampleSite) -> None:
    text, content = await _call(sample_site, SEARCH, {"query": "checklist", "limit": 5})
    holders = [
        wp["id"]
        for wp in corpus()["work_packages"]
        if "checklist" in (wp.get("subject", "") + wp.get("description", "")).lower()
    ]
    assert holders == []  # the premise: no work package holds the word
    first = text.splitlines()[0]
    assert "no record contains 'checklist'; closest: 'checkout'" in first, first
    assert content["meta"]["nearMatches"][0] == "checklist≈checkout (stem)"
    assert all(hit["near"] in ("checkout", "checked") for hit in content["results"])


async def test_a_misspelt_rare_word_names_its_closest_word_first(sample_site: SampleSite) -> None:
    text, content = await _call(sample_site, SEARCH, {"query": "indemnifcation", "limit": 5})
    first = text.splitlines()[0]
    assert "closest: 'indemnification'" in first, first
    assert content["results"][0]["id"] == 1001  # the contract holding the word itself


async def test_a_query_without_letters_or_digits_is_answered_empty_with_a_hint(
    sample_site: SampleSite,
) -> None:
    text, content = await _call(sample_site, SEARCH, {"query": ":"})
    assert content["results"] == []
    assert text.splitlines()[0].startswith("The query ':' has no letters or digits")
    assert "matchMode 'exact'" in content["meta"]["notice"]


@pytest.mark.parametrize("query", ["#1001", "1001", "WP 1001", "wp#1001"])
async def test_an_id_returns_that_record_first(sample_site: SampleSite, query: str) -> None:
    _, content = await _call(sample_site, SEARCH, {"query": query, "detail": "full"})
    top = content["results"][0]
    assert top["id"] == 1001
    assert top["matchedWords"] == [f"{query}: id '#1001'"]
    assert [hit["id"] for hit in content["results"]].count(1001) == 1


async def test_a_link_returns_that_record_first(sample_site: SampleSite) -> None:
    link = f"{sample_site.sandbox.base_url}/work_packages/1002/activity"
    _, content = await _call(sample_site, SEARCH, {"query": link})
    assert content["results"][0]["id"] == 1002
    meetings = corpus()["meetings"]
    meeting = meetings[0]["id"]
    _, found = await _call(
        sample_site,
        "openproject_search_meetings",
        {"query": f"https://op.example.com/meetings/{meeting}"},
    )
    assert found["results"][0]["id"] == meeting


@pytest.mark.parametrize("source", ["index", "live"])
async def test_an_id_the_account_cannot_see_is_not_listed(
    sample_site: SampleSite, source: str
) -> None:
    hidden = [wp["id"] for wp in corpus()["work_packages"] if wp["project"] == 50]
    assert hidden == [1004]  # design-team: juergen is no member
    _, content = await _call(sample_site, SEARCH, {"query": "#1004", "source": source})
    assert 1004 not in [hit["id"] for hit in content["results"]]


async def test_an_empty_query_across_kinds_is_newest_first(sample_site: SampleSite) -> None:
    _, content = await _call(sample_site, "openproject_search", {"query": "", "limit": 30})
    stamps = [hit["updatedAt"] for hit in content["results"]]
    assert stamps == sorted(stamps, reverse=True)
    _, everything = await _call(sample_site, "openproject_search", {"query": "", "limit": 100})
    newest_wp = newest_first(corpus()["work_packages"])[0]
    wp_hits = [hit["id"] for hit in everything["results"] if hit["kind"] == "work_package"]
    assert wp_hits and wp_hits[0] == newest_wp


async def test_sort_updated_on_the_global_search(sample_site: SampleSite) -> None:
    _, content = await _call(
        sample_site, "openproject_search", {"query": "checkout", "sort": "updated", "limit": 15}
    )
    stamps = [hit["updatedAt"] for hit in content["results"]]
    assert len(stamps) == 15 and stamps == sorted(stamps, reverse=True)
    assert content["meta"]["sort"] == "updated"


async def test_a_wiki_link_returns_that_page_first(sample_site: SampleSite) -> None:
    _, listing = await _call(
        sample_site, "openproject_search_wiki_pages", {"query": "disaster recovery", "limit": 5}
    )
    target = listing["results"][-1]
    path = target["url"].split("/projects/", 1)[1]  # "<project>/wiki/<slug>"
    link = f"https://op.example.com/projects/{path}"
    _, found = await _call(
        sample_site, "openproject_search_wiki_pages", {"query": link, "detail": "full"}
    )
    top = found["results"][0]
    assert top["id"] == target["id"]
    assert top["matchedWords"] == [f"{link}: id '#{target['id']}'"]  # named, not just found
