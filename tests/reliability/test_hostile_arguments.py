"""Hostile arguments: dates at the year limits, records dated at or before 1970, and
unknown arguments to a tool that takes none, through the real MCP SDK client and CLI."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.reliability.conftest import run_opindex
from tests.support.corpus_builder import MEMBER_KEY, CorpusBuilder
from tests.support.mcp_clients import PortalClient, error_text, in_process_client, result_ids
from tests.support.synced_tenant import synced_tenant

EARLY = "0001-01-01T00:00:00+14:00"  # before year 1 once in UTC
LATE = "9999-12-31T23:59:59-05:00"  # after year 9999 once in UTC
DATE_ARGUMENTS = ("updatedAfter", "updatedBefore")
MOON, EPOCH, RECENT = 11, 12, 13


def _corpus() -> CorpusBuilder:
    corpus = CorpusBuilder()
    corpus.add_work_package(MOON, subject="Landing report", updatedAt="1969-07-20T20:17:00Z")
    corpus.add_work_package(EPOCH, subject="Landing clock", updatedAt="1970-01-01T00:00:00Z")
    corpus.add_work_package(RECENT, subject="Landing page", updatedAt="2026-03-02T09:00:00Z")
    return corpus


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[PortalClient, Path]]:
    """Tenant acme synced from a sandbox holding work packages of 1969, 1970 and 2026."""
    directory = tmp_path_factory.mktemp("hostile")
    with (
        synced_tenant(directory, _corpus().build(), MEMBER_KEY) as tenant,
        in_process_client(tenant.config) as client,
    ):
        yield client, tenant.config_path


def test_year_limit_dates_are_refused_naming_the_argument_on_every_tool(
    site: tuple[PortalClient, Path],
) -> None:
    client, _ = site
    dated = {
        name: [arg for arg in DATE_ARGUMENTS if arg in schema.get("properties", {})]
        for name, schema in client.tool_schemas().items()
    }
    dated = {name: args for name, args in dated.items() if args}
    assert "openproject_search_work_packages" in dated
    assert "openproject_list_work_packages" in dated
    for name, arguments in dated.items():
        for argument in arguments:
            for value in (EARLY, LATE):
                text = error_text(client.call(name, {argument: value}))
                assert argument in text and "Error executing tool" not in text, (name, text)
                assert "outside the years" in text and "Traceback" not in text, text


def test_year_limit_dates_on_the_command_line_exit_2_with_one_line(
    site: tuple[PortalClient, Path],
) -> None:
    _, config_path = site
    for option, value in (("--updated-after", LATE), ("--updated-before", EARLY)):
        done = run_opindex(
            "search", "landing", "--kind", "work_packages", "--config", str(config_path),
            option, value,
        )  # fmt: skip
        assert done.returncode == 2, done.stderr
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and option in lines[0] and "Traceback" not in done.stderr, lines


def test_extreme_but_representable_dates_answer(site: tuple[PortalClient, Path]) -> None:
    client, _ = site
    for source in ("index", "live"):
        search = "openproject_search_work_packages"
        early = client.call(search, {"updatedBefore": "0001-01-01T00:00:00Z", "source": source})
        assert result_ids(early) == []
        late = client.call(search, {"updatedAfter": "9999-12-31T23:59:59Z", "source": source})
        assert result_ids(late) == []
        every = client.call(
            search, {"query": "landing", "updatedAfter": "0001-01-01", "source": source}
        )
        assert set(result_ids(every)) == {MOON, EPOCH, RECENT}


@pytest.mark.parametrize("source", ["index", "live"])
@pytest.mark.parametrize("query", ["landing", ""])
def test_records_at_or_before_1970_are_kept_by_updated_before(
    site: tuple[PortalClient, Path], source: str, query: str
) -> None:
    client, _ = site
    arguments = {"query": query, "updatedBefore": "1970-01-02", "source": source}
    found = result_ids(client.call("openproject_search_work_packages", arguments))
    assert set(found) == {MOON, EPOCH}
    if not query:  # listed newest first
        assert found == [EPOCH, MOON]
    newest = {**arguments, "sort": "updated"}
    assert result_ids(client.call("openproject_search_work_packages", newest)) == [EPOCH, MOON]
    upto = {"query": query, "updatedBefore": "1970-01-01T00:00:00.000001Z", "source": source}
    assert set(result_ids(client.call("openproject_search_work_packages", upto))) == {
        MOON,
        EPOCH,
    }
    window = {"query": query, "updatedAfter": "1969-07-20T20:17:00Z", "source": source}
    assert set(result_ids(client.call("openproject_search_work_packages", window))) == {
        MOON,
        EPOCH,
        RECENT,
    }


def test_unknown_argument_to_a_tool_without_arguments_reads_sensibly(
    site: tuple[PortalClient, Path],
) -> None:
    client, _ = site
    text = error_text(client.call("openproject_index_status", {"verbose": True}))
    assert "'verbose'" in text and "this tool takes no arguments" in text, text
    assert "the arguments are ." not in text
