"""The seed's relaxation rule (zero-hit-fallback-issue), its acceptance list end to end.

When a fallback fires, ``meta.wildcard_fallback`` is true and ``meta.fallback_strategy``
names it (``wildcard_suffix`` | ``drop_term`` | ``concept_expansion``); when the primary
search succeeds, false and none; with ``--no-fallback`` (MCP ``fallback: false``), false
even where a fallback would have helped.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from tests.tools.conftest import SampleSite, structured, text_of, tools_client

from opindex import cli

SEARCH = "openproject_search_work_packages"
STRATEGIES = ("wildcard_suffix", "drop_term", "concept_expansion")


async def _meta(site: SampleSite, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    async with tools_client(site, "juergen") as client:
        result = await client.call_tool(tool, arguments)
    content = structured(result)
    meta: dict[str, Any] = content["meta"]
    meta["_results"] = content["results"]
    meta["_text"] = text_of(result)
    return meta


@pytest.mark.parametrize(
    ("tool", "query", "strategy", "effective"),
    [
        (SEARCH, "tl cert", "wildcard_suffix", "tl* cert*"),
        (SEARCH, "checkout zebrafish", "drop_term", "checkout"),
        (SEARCH, "hotfix", "concept_expansion", "(hotfix|fix|patch|repair)"),
        ("openproject_search_meetings", "squad", "concept_expansion", "(squad|team|crew|staff)"),
    ],
)
@pytest.mark.parametrize("source", ["index", "live"])
async def test_a_fallback_that_fired_sets_the_flag_and_names_the_strategy(
    sample_site: SampleSite, tool: str, query: str, strategy: str, effective: str, source: str
) -> None:
    meta = await _meta(sample_site, tool, {"query": query, "source": source})
    assert meta["_results"], "the fallback found something"
    assert meta["wildcardFallback"] is True
    assert meta["fallbackStrategy"] == strategy
    assert meta["effectiveQuery"] == effective
    assert meta["_text"].startswith("Relaxed: ")


async def test_a_primary_hit_leaves_the_flag_false_and_no_strategy(
    sample_site: SampleSite,
) -> None:
    meta = await _meta(sample_site, SEARCH, {"query": "certificate"})
    assert meta["_results"]
    assert meta["wildcardFallback"] is False
    assert "fallbackStrategy" not in meta


async def test_no_fallback_gives_zero_results_and_false_where_a_fallback_would_help(
    sample_site: SampleSite,
) -> None:
    helped = await _meta(sample_site, SEARCH, {"query": "tl cert"})
    assert helped["_results"] and helped["wildcardFallback"] is True
    strict = await _meta(sample_site, SEARCH, {"query": "tl cert", "fallback": False})
    assert strict["_results"] == []
    assert strict["wildcardFallback"] is False
    assert "fallbackStrategy" not in strict


def _cli(site: SampleSite, capsys: pytest.CaptureFixture[str], *extra: str) -> dict[str, Any]:
    query = "totally nonexistent phrase about quantum sockets"
    argv = ["search", query, "--kind", "work_packages", "--json", *extra]
    code = cli.main([*argv, "--config", str(site.config_path), "--tenant", "juergen"])
    assert code == cli.EXIT_OK
    envelope: dict[str, Any] = json.loads(capsys.readouterr().out)
    return envelope


def test_the_seed_verification_commands(
    sample_site: SampleSite, capsys: pytest.CaptureFixture[str]
) -> None:
    first = _cli(sample_site, capsys)["meta"]
    assert first["wildcard_fallback"] is True
    assert first["fallback_strategy"] in STRATEGIES
    second = _cli(sample_site, capsys, "--no-fallback")
    assert second["meta"]["wildcard_fallback"] is False
    assert second["meta"]["fallback_strategy"] is None
    assert second["results"] == []


def test_no_fallback_is_documented(
    sample_site: SampleSite, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        cli.main(["search", "--help"])
    assert "--no-fallback" in capsys.readouterr().out


async def test_the_tool_schema_shows_the_fallback_switch(sample_site: SampleSite) -> None:
    async with tools_client(sample_site, "juergen") as client:
        listed = await client.list_tools()
    for tool in listed.tools:
        if tool.name.startswith("openproject_search_"):
            assert tool.input_schema["properties"]["fallback"]["type"] == "boolean"
