"""``opindex search`` end to end: a sandbox-synced tenant, the index path, the CLI output."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.support.module_probe import imported_by
from tests.support.recall_corpus import RECALL_CASES, RECALL_KEY, RecallCase, recall_corpus
from tests.support.synced_tenant import SyncedTenant, synced_tenant

from opindex import cli
from opindex.cli.search_command import BOLD, RESET, highlight
from opindex.search.query import parse_query

OPENPROJECT_API = {
    "httpx",
    "opindex.openproject",
    "opindex.openproject.client",
    "opindex.openproject.http_session",
}
LIVE_PATH = {"opindex.live.live_session", "opindex.live.wikis", "opindex.live.work_packages"}


@pytest.fixture(scope="module")
def tenant(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SyncedTenant]:
    directory = tmp_path_factory.mktemp("search-cli")
    with synced_tenant(directory, recall_corpus(), RECALL_KEY) as synced:
        yield synced


def _search(
    capsys: pytest.CaptureFixture[str], config: Path, *args: str
) -> tuple[int, dict[str, Any]]:
    code = cli.main(["search", *args, "--config", str(config), "--json"])
    captured = capsys.readouterr()
    return code, json.loads(captured.out) if captured.out else {"stderr": captured.err}


@pytest.mark.parametrize("case", RECALL_CASES, ids=lambda case: f"{case.source}:{case.query}")
def test_recall_through_the_index_path(
    tenant: SyncedTenant, capsys: pytest.CaptureFixture[str], case: RecallCase
) -> None:
    tenant.sandbox.reset_stats()
    code, envelope = _search(capsys, tenant.config_path, case.query, "--kind", case.kind)
    assert code == cli.EXIT_OK
    assert envelope["meta"]["source"] == "index"
    assert envelope["meta"]["index_state"] == "fresh"
    assert envelope["results"], f"nothing found for {case.query!r}"
    assert envelope["results"][0]["id"] == case.expected_id
    assert envelope["meta"]["wildcard_fallback"] is False
    assert tenant.sandbox.stats()["requests"] == 0  # the index path calls no API


def test_json_envelope_shape(tenant: SyncedTenant, capsys: pytest.CaptureFixture[str]) -> None:
    code, envelope = _search(capsys, tenant.config_path, "budget aproval", "--kind", "meetings")
    assert code == cli.EXIT_OK
    top = envelope["results"][0]
    assert {"id", "score", "title", "matchedFields", "snippet"} <= set(top)
    assert top["matchedAgendaItems"] == [
        {"id": 3101, "title": "Approval of Q3 budget", "snippet": "Approval of Q3 budget"}
    ]
    meta = envelope["meta"]
    for key in (
        "source",
        "index_state",
        "indexed_at",
        "age_seconds",
        "degraded",
        "enrichment_failures",
        "wildcard_fallback",
        "fallback_strategy",
        "effective_query",
        "total",
    ):
        assert key in meta
    assert meta["tenant"] == "acme"
    assert meta["total"] >= 1
    assert meta["degraded"] is False


def test_matched_comment_is_reported(
    tenant: SyncedTenant, capsys: pytest.CaptureFixture[str]
) -> None:
    _, envelope = _search(capsys, tenant.config_path, "invoice rounding", "--kind", "work_packages")
    top = envelope["results"][0]
    assert top["matchedFields"] == ["comments"]
    assert [c["id"] for c in top["matchedComments"]] == [9002]
    assert "rounding" in top["matchedComments"][0]["snippet"]


def test_zero_hit_query_is_relaxed_unless_disabled(
    tenant: SyncedTenant, capsys: pytest.CaptureFixture[str]
) -> None:
    query = "totally nonexistent phrase about kubernetes quantum sockets"
    _, relaxed = _search(capsys, tenant.config_path, query, "--kind", "work_packages")
    assert relaxed["results"], "relaxation should find the Kubernetes work package"
    assert relaxed["results"][0]["id"] == 12
    strategy = relaxed["meta"]["fallback_strategy"]
    assert relaxed["meta"]["wildcard_fallback"] is True
    assert strategy in (
        "wildcard_suffix",
        "drop_term",
        "concept_expansion",
    )
    assert relaxed["meta"]["effective_query"] != relaxed["meta"]["original_query"]

    _, strict = _search(
        capsys, tenant.config_path, query, "--kind", "work_packages", "--no-fallback"
    )
    assert strict["results"] == []
    assert strict["meta"]["wildcard_fallback"] is False
    assert strict["meta"]["fallback_strategy"] is None
    assert strict["meta"]["total"] == 0


def test_filters_reach_the_index(tenant: SyncedTenant, capsys: pytest.CaptureFixture[str]) -> None:
    args = ("office", "--kind", "work_packages")
    _, everything = _search(capsys, tenant.config_path, *args)
    assert {r["id"] for r in everything["results"]} == {14, 17}
    _, open_only = _search(capsys, tenant.config_path, *args, "--status", "open")
    assert [r["id"] for r in open_only["results"]] == [17]
    _, closed = _search(capsys, tenant.config_path, *args, "--status", "closed")
    assert [r["id"] for r in closed["results"]] == [14]
    _, project_two = _search(capsys, tenant.config_path, *args, "--project", "2")
    assert [r["id"] for r in project_two["results"]] == [17]


def test_live_source_answers_live(tenant: SyncedTenant, capsys: pytest.CaptureFixture[str]) -> None:
    tenant.sandbox.reset_stats()
    _, envelope = _search(
        capsys,
        tenant.config_path,
        "kubernet upgrade",
        "--kind",
        "work_packages",
        "--source",
        "live",
    )
    assert envelope["meta"]["source"] == "live"
    assert envelope["results"][0]["id"] == 12
    assert tenant.sandbox.stats()["requests"] > 0


def test_table_output_without_tty_has_no_ansi(
    tenant: SyncedTenant, capsys: pytest.CaptureFixture[str]
) -> None:
    code = cli.main(
        ["search", "budget aproval", "--kind", "meetings", "--config", str(tenant.config_path)]
    )
    out = capsys.readouterr().out
    assert code == cli.EXIT_OK
    assert "\033[" not in out
    assert "#31" in out and "Finance sync" in out
    assert "agenda item #3101 Approval of Q3 budget" in out
    assert "source index" in out and "index fresh" in out


def test_table_says_when_nothing_matched(
    tenant: SyncedTenant, capsys: pytest.CaptureFixture[str]
) -> None:
    code = cli.main(
        [
            "search",
            "zzqx",
            "--kind",
            "wiki_pages",
            "--no-fallback",
            "--config",
            str(tenant.config_path),
        ]
    )
    out = capsys.readouterr().out
    assert code == cli.EXIT_OK
    assert "No wiki pages match 'zzqx'." in out


def test_bad_arguments_are_usage_errors(
    tenant: SyncedTenant, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exc:
        cli.main(["search", "x", "--kind", "tickets", "--config", str(tenant.config_path)])
    assert exc.value.code == cli.EXIT_USAGE
    code = cli.main(
        [
            "search",
            "x",
            "--kind",
            "meetings",
            "--tenant",
            "nope",
            "--config",
            str(tenant.config_path),
        ]
    )
    assert code == cli.EXIT_USAGE
    assert "unknown tenant 'nope'" in capsys.readouterr().err
    code = cli.main(
        [
            "search",
            "x",
            "--kind",
            "meetings",
            "--status",
            "open",
            "--config",
            str(tenant.config_path),
        ]
    )
    assert code == cli.EXIT_USAGE
    assert "only work packages" in capsys.readouterr().err


def test_config_from_the_environment(
    tenant: SyncedTenant, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPINDEX_CONFIG", str(tenant.config_path))
    code = cli.main(["search", "kubernet", "--kind", "work_packages", "--json"])
    assert code == cli.EXIT_OK
    assert json.loads(capsys.readouterr().out)["results"][0]["id"] == 12


def test_config_from_the_working_directory(
    tenant: SyncedTenant, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPINDEX_CONFIG", raising=False)
    monkeypatch.chdir(tenant.config_path.parent)
    code = cli.main(["search", "runbok", "--kind", "wiki_pages", "--json", "--limit", "1"])
    assert code == cli.EXIT_OK
    envelope = json.loads(capsys.readouterr().out)
    assert [r["id"] for r in envelope["results"]] == [21]


def test_highlighting_only_with_color() -> None:
    text = "Approval of Q3 budget"
    fuzzy = parse_query("budget aproval")
    assert highlight(text, fuzzy, color=False) == text
    assert highlight(text, fuzzy, color=True) == (
        f"{BOLD}Approval{RESET} of Q3 {BOLD}budget{RESET}"
    )
    exact = parse_query("of q3", "exact")
    assert highlight(text, exact, color=True) == f"Approval {BOLD}of Q3{RESET} budget"


def test_every_kind_at_once(tenant: SyncedTenant, capsys: pytest.CaptureFixture[str]) -> None:
    code, envelope = _search(capsys, tenant.config_path, "budget aproval", "--kind", "all")
    assert code == cli.EXIT_OK
    kinds = {result["kind"] for result in envelope["results"]}
    assert {"meeting", "work_package"} <= kinds
    assert {answer["kind"] for answer in envelope["meta"]["kinds"]} >= {"news", "attachment"}
    scores = [result["score"] for result in envelope["results"]]
    assert scores == sorted(scores, reverse=True)
    assert cli.main(["search", "budget", "--kind", "all", "--config", str(tenant.config_path)]) == 0
    text = capsys.readouterr().out
    assert "across work packages, wiki pages, meetings" in text and "[meeting]" in text


def _modules_of_search(config: Path, *args: str) -> tuple[dict[str, Any], set[str]]:
    """The JSON envelope ``opindex search --json`` printed in a fresh interpreter and every
    module that interpreter imported."""
    run = imported_by(["search", *args, "--config", str(config), "--json"])
    assert run.code == cli.EXIT_OK, run.stderr
    return json.loads(run.printed), run.modules


@pytest.mark.parametrize("kind", ["meetings", "all"])
def test_an_index_answer_imports_no_http_client(tenant: SyncedTenant, kind: str) -> None:
    envelope, modules = _modules_of_search(tenant.config_path, "budget aproval", "--kind", kind)
    assert envelope["results"]
    sources = [answer["source"] for answer in envelope["meta"].get("kinds", [envelope["meta"]])]
    assert set(sources) == {"index"}
    assert not modules & (OPENPROJECT_API | LIVE_PATH), "the index path imported the live path"
    assert "opindex.mcp.wire" not in modules  # --json renders no MCP text


def test_a_live_answer_imports_the_client_on_first_use(tenant: SyncedTenant) -> None:
    envelope, modules = _modules_of_search(
        tenant.config_path, "quarterly budget", "--kind", "meetings", "--source", "live"
    )
    assert envelope["meta"]["source"] == "live"
    assert modules >= OPENPROJECT_API | LIVE_PATH
