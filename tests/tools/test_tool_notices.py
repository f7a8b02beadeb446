"""What the answers say about themselves: relaxation first, live-path limits, filters."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest
from tests.tools.conftest import SampleSite, error_of, structured, text_of, tools_client

from opindex import cli
from opindex.envelope import SearchMeta, SearchRequest
from opindex.mcp.rendering import relaxation_notice
from opindex.search.query import parse_query
from opindex.search.relax import RelaxationOutcome
from opindex.service import Freshness
from opindex.service.search_flow import PathAnswer, envelope

SEARCH = "openproject_search_work_packages"


@pytest.mark.parametrize("source", ["index", "live"])
async def test_the_relaxation_notice_is_the_first_line(
    sample_site: SampleSite, source: str
) -> None:
    async with tools_client(sample_site, "admin") as client:
        result = await client.call_tool(
            SEARCH, {"query": "checkout zebrafish", "limit": 20, "source": source}
        )
    first = text_of(result).splitlines()[0]
    assert first == (
        "Relaxed: nothing matched every word of 'checkout zebrafish'; dropped 'zebrafish' "
        "and searched 'checkout'."
    )
    meta = structured(result)["meta"]
    assert meta["fallbackStrategy"] == "drop_term"
    assert meta["wildcardFallback"] is True
    assert (meta["originalQuery"], meta["effectiveQuery"]) == ("checkout zebrafish", "checkout")


def _meta(strategy: str | None, original: str, effective: str) -> SearchMeta:
    return SearchMeta.model_validate(
        {
            "tenant": "t",
            "kind": "work_package",
            "source": "index",
            "index_state": "fresh",
            "fallback_strategy": strategy,
            "original_query": original,
            "effective_query": effective,
        }
    )


@pytest.mark.parametrize(
    ("strategy", "original", "effective", "expected"),
    [
        (None, "budget", "budget", None),
        (
            "wildcard_suffix",
            "kube upgr",
            "kube* upgr*",
            "Relaxed: nothing matched 'kube upgr' as written; searched its words as prefixes "
            "('kube* upgr*').",
        ),
        (
            "drop_term",
            "onboarding checklist zzz",
            "onboarding checklist",
            "Relaxed: nothing matched every word of 'onboarding checklist zzz'; dropped 'zzz' "
            "and searched 'onboarding checklist'.",
        ),
        (
            "concept_expansion",
            "bug",
            "(bug|defect)",
            "Relaxed: nothing matched 'bug' as written; searched related terms '(bug|defect)'.",
        ),
    ],
)
def test_the_notice_names_what_was_dropped_and_searched(
    strategy: str | None, original: str, effective: str, expected: str | None
) -> None:
    assert relaxation_notice(_meta(strategy, original, effective)) == expected


@pytest.mark.parametrize(
    ("strategy", "wildcard"),
    [(None, False), ("wildcard_suffix", True), ("drop_term", True), ("concept_expansion", True)],
)
def test_wildcard_fallback_is_true_whenever_a_fallback_fired(
    strategy: str | None, wildcard: bool
) -> None:
    request = SearchRequest(kind="work_package", query="budget review")
    outcome = RelaxationOutcome(strategy, "budget review", "budget", 1)  # type: ignore[arg-type]
    answer = PathAnswer("index", [], parse_query("budget"), outcome, total=0)
    fresh = Freshness("fresh", indexed_at=datetime.now(UTC), age_seconds=1.0)
    meta = envelope("t", request, answer, fresh, base_url=None).meta
    assert meta.wildcard_fallback is wildcard
    assert meta.fallback_strategy == strategy


def test_the_cli_footer_says_what_was_dropped(
    sample_site: SampleSite, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["search", "checkout zebrafish", "--kind", "work_packages"]
    code = cli.main([*argv, "--config", str(sample_site.config_path), "--tenant", "admin"])
    out = capsys.readouterr().out
    assert code == cli.EXIT_OK
    assert "dropped 'zebrafish' and searched 'checkout'" in out
    assert "relaxed with drop_term" not in out


def test_a_zero_hit_cli_answer_names_the_filters(
    sample_site: SampleSite, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["search", "checkout", "--kind", "work_packages", "--project", "999"]
    code = cli.main([*argv, "--config", str(sample_site.config_path), "--tenant", "admin"])
    out = capsys.readouterr().out
    assert code == cli.EXIT_OK
    assert "No work packages match 'checkout' with these filters: project 999." in out


def test_the_cli_takes_a_project_name(
    sample_site: SampleSite, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["search", "checkout", "--kind", "work_packages", "--project", "Platform Engineering"]
    code = cli.main(
        [*argv, "--json", "--config", str(sample_site.config_path), "--tenant", "admin"]
    )
    envelope_json = json.loads(capsys.readouterr().out)
    assert code == cli.EXIT_OK
    assert {r["project"]["name"] for r in envelope_json["results"]} == {"Platform Engineering"}


async def test_the_live_path_says_which_comments_it_could_not_read(
    sample_site: SampleSite,
) -> None:
    async with tools_client(sample_site, "admin") as client:
        live = await client.call_tool(SEARCH, {"query": "flamingo", "source": "live"})
        index = await client.call_tool(SEARCH, {"query": "flamingo", "source": "index"})
    notes = structured(live)["meta"].get("notes", [])
    assert any("comments of only" in note and "opindex sync" in note for note in notes)
    assert "comments of only" in text_of(live)
    assert not any("comments of only" in n for n in structured(index)["meta"].get("notes", []))


async def test_a_missing_record_is_reported_once_with_one_period(
    sample_site: SampleSite,
) -> None:
    async with tools_client(sample_site, "admin") as client:
        result = await client.call_tool("openproject_get_work_package", {"id": 99999})
    text = error_of(result)
    assert "Not found" in text and ".." not in text
