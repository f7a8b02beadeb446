"""Filters by name: projects, people, statuses and types, and the look-up tool listing them."""

from __future__ import annotations

from typing import Any

import pytest
from tests.tools.conftest import (
    JUERGEN,
    SampleSite,
    error_of,
    structured,
    text_of,
    tools_client,
)
from tests.tools.sample_facts import corpus, id_of, work_packages

SEARCH = "openproject_search_work_packages"
LIST = "openproject_list_work_packages"


async def _ids(site: SampleSite, tenant: str, tool: str, arguments: dict[str, Any]) -> set[int]:
    async with tools_client(site, tenant) as client:
        result = await client.call_tool(tool, {"limit": 100, **arguments})
    return {item["id"] for item in structured(result)["results"]}


@pytest.mark.parametrize("source", ["index", "live"])
@pytest.mark.parametrize(
    ("argument", "by_name", "by_id"),
    [
        ("project", "platform", 2),  # identifier
        ("project", "Platform Engineering", 2),  # name
        ("project", "platform engineering", 2),  # any case
        ("assignee", "Jürgen Müller", 101),  # name
        ("assignee", "juergen.mueller", 101),  # login (visible to an admin)
        ("assignee", "Jurgen Muller", 101),  # without accents
        ("author", "Søren Schäfer", 5),
        ("type", "Bug", 2),
        ("status", "In review", 4),
    ],
)
async def test_a_name_finds_what_its_id_finds(
    sample_site: SampleSite, source: str, argument: str, by_name: str, by_id: int
) -> None:
    named = await _ids(sample_site, "admin", SEARCH, {argument: by_name, "source": source})
    numbered = await _ids(sample_site, "admin", SEARCH, {argument: by_id, "source": source})
    field = {"project": "project", "assignee": "assignee", "author": "author"}.get(argument)
    field = field or {"type": "type", "status": "status"}[argument]
    expected = {wp["id"] for wp in work_packages(**{field: by_id})}
    assert named == numbered == expected
    assert expected  # the case is not vacuous


async def test_me_is_the_callers_own_user(sample_site: SampleSite) -> None:
    mine = await _ids(sample_site, "juergen", SEARCH, {"assignee": "me"})
    assert mine == await _ids(sample_site, "juergen", SEARCH, {"assignee": JUERGEN})
    assert mine and mine <= {wp["id"] for wp in work_packages(assignee=JUERGEN)}


async def test_the_listing_tool_takes_names_too(sample_site: SampleSite) -> None:
    arguments = {"project": "ops", "status": "all", "type": "Bug"}
    named = await _ids(sample_site, "admin", LIST, arguments)
    expected = {wp["id"] for wp in work_packages(project=1, type=2)}
    assert named == expected and expected


async def test_status_takes_a_list_of_names_and_ids(sample_site: SampleSite) -> None:
    found = await _ids(sample_site, "admin", SEARCH, {"status": ["New", 2]})
    assert found == {wp["id"] for wp in corpus()["work_packages"] if wp["status"] in (1, 2)}


async def test_an_ambiguous_name_lists_the_candidates(sample_site: SampleSite) -> None:
    async with tools_client(sample_site, "admin") as client:
        result = await client.call_tool(SEARCH, {"assignee": "Łukasz"})
    text = error_of(result)
    assert "assignee" in text and "matches 2 users" in text
    assert f"Łukasz García (lukasz.garcia, id {id_of('users', name='Łukasz García')})" in text
    assert "Łukasz Nowak" in text and ".." not in text


async def test_an_unknown_name_lists_the_closest_ones(sample_site: SampleSite) -> None:
    async with tools_client(sample_site, "juergen") as client:
        project = await client.call_tool(SEARCH, {"project": "platfrom"})
        status = await client.call_tool(SEARCH, {"status": "reviewed"})
    text = error_of(project)
    assert "no project called 'platfrom'" in text
    assert text.index("Platform Engineering (platform, id 2)") < text.index("Operations")
    assert "openproject_lookup" in text
    assert "Design Team" not in text  # a project Jürgen cannot see is never named
    assert "In review" in error_of(status)


async def test_lookup_lists_what_the_account_sees(sample_site: SampleSite) -> None:
    async with tools_client(sample_site, "juergen") as client:
        projects = await client.call_tool("openproject_lookup", {"kind": "projects"})
        users = await client.call_tool("openproject_lookup", {"kind": "users", "name": "sø"})
        statuses = await client.call_tool("openproject_lookup", {"kind": "statuses"})
        types = await client.call_tool("openproject_lookup", {"kind": "types"})
    seen = {entry["handle"] for entry in structured(projects)["results"]}
    member_of = {
        p["identifier"] for p in corpus()["projects"] if JUERGEN in p["members"] or p.get("public")
    }
    assert seen == member_of and "design-team" not in seen
    assert [e["name"] for e in structured(users)["results"]] == ["Søren Schäfer", "Søren Ørsted"]
    assert structured(users)["me"] == JUERGEN
    closed = {e["name"] for e in structured(statuses)["results"] if e.get("closed")}
    assert closed == {s["name"] for s in corpus()["statuses"] if s["isClosed"]}
    assert [e["name"] for e in structured(types)["results"]] == [
        t["name"] for t in corpus()["types"]
    ]
    assert "2: Platform Engineering (platform)" in text_of(projects)


async def test_lookup_refuses_an_unknown_kind(sample_site: SampleSite) -> None:
    async with tools_client(sample_site, "juergen") as client:
        result = await client.call_tool("openproject_lookup", {"kind": "teams"})
    assert result.is_error
    assert "kind" in text_of(result)
