"""Building envelope results from ranked records: fields, snippets, sub-record matches."""

from __future__ import annotations

import dataclasses

from service_records import meeting, wiki_page, work_package

from opindex.records import Record
from opindex.search.analysis import AnalyzedText
from opindex.search.fields import rank_documents
from opindex.search.match import QueryMatcher
from opindex.search.query import parse_query
from opindex.service.result_builder import ResultBuilder, ScoredHit, record_url


def _results(
    records: list[Record], text: str, match_mode: str = "fuzzy"
) -> list[dict[str, object]]:
    query = parse_query(text, match_mode)  # type: ignore[arg-type]
    kind = records[0].document.kind
    by_id = {record.id: record for record in records}
    ranked = rank_documents([r.document for r in records], query, kind)
    builder = ResultBuilder(query, base_url="https://op.example.com/")
    hits = [ScoredHit(by_id[item.record.id], item) for item in ranked]
    return [result.model_dump(mode="json", by_alias=True) for result in builder.build(hits)]


def test_work_package_reports_the_matching_comment() -> None:
    record = work_package(
        7,
        "Renew TLS certificate",
        "The certificate of the public gateway expires next month.",
        comments=[(9001, "Ordered from the usual vendor."), (9002, "Budget approval arrived")],
    )
    [result] = _results([record], "budget aproval")
    assert result["id"] == 7
    assert result["title"] == "Renew TLS certificate"
    assert result["matchedFields"] == ["comments"]
    assert result["matchedComments"] == [{"id": 9002, "snippet": "Budget approval arrived"}]
    [match] = result["matches"]  # type: ignore[misc]
    assert (match["field"], match["ref"]) == ("comments", 9002)
    assert match["snippet"] == "Budget approval arrived"
    assert result["url"] == "https://op.example.com/work_packages/7"
    assert result["project"] == {"id": 1, "name": "Project 1"}


def test_snippet_is_centred_on_a_match_deep_in_a_long_text() -> None:
    filler = "Nothing relevant happens in this sentence at all. " * 20
    record = work_package(3, "Quarterly report", filler + "The firewall migration slipped.")
    [result] = _results([record], "firewall migration")
    snippet = result["snippet"]
    assert isinstance(snippet, str)
    assert "firewall migration" in snippet
    assert snippet.startswith("…")
    assert len(snippet) <= 160


def test_meeting_lists_matched_agenda_items_with_titles() -> None:
    record = meeting(
        12,
        "Weekly sync",
        agenda=[
            (120, "Approval of Q3 budget", "Finance presents numbers"),
            (121, "Hiring plan", ""),
        ],
        outcomes=[(121, "Decision: hiring two engineers for the platform team")],
    )
    [result] = _results([record], "budget aproval")
    assert result["matchType"] == "agenda_item"
    assert result["matchedAgendaItems"] == [
        {"id": 120, "title": "Approval of Q3 budget", "snippet": "Approval of Q3 budget"}
    ]
    [result] = _results([record], "what did we decide about hiring engineers")
    items = result["matchedAgendaItems"]
    assert isinstance(items, list)
    assert [item["id"] for item in items] == [121]
    assert items[0]["title"] == "Hiring plan"
    assert "engineers" in items[0]["snippet"]


def test_meeting_matched_by_author_has_no_agenda_items() -> None:
    record = meeting(5, "Design review", agenda=[(50, "Mockups", "")], author="Bob Müller")
    [result] = _results([record], "muller")
    assert result["matchType"] == "author"
    assert result["matchedFields"] == ["author"]
    assert result["matchedAgendaItems"] == []
    assert result["matchedComments"] is None


def test_exact_mode_uses_substring_matches_for_sub_records() -> None:
    record = work_package(9, "Printer", comments=[(1, "toner is empty"), (2, "TONER ordered")])
    [result] = _results([record], "toner", match_mode="exact")
    assert result["score"] == 0.33
    comments = result["matchedComments"]
    assert isinstance(comments, list)
    assert [c["id"] for c in comments] == [1, 2]


def test_results_keep_the_ranked_order() -> None:
    records = [
        work_package(1, "Budget", "approval of the budget"),
        work_package(2, "Budget approval"),
        work_package(3, "Approval"),
    ]
    results = _results(records, "budget approval")
    assert [r["id"] for r in results] == [2, 1]
    assert results[0]["score"] == 1.0


def test_record_urls() -> None:
    page = wiki_page(4, "Release Runbook", project_id=3)
    assert record_url("https://op.example.com", page) == (
        "https://op.example.com/projects/3/wiki/release-runbook"
    )
    assert record_url(None, page) is None
    assert record_url("https://x", meeting(2, "M")) == "https://x/meetings/2"


def _comment_results(
    record: Record, text: str, value_scores: dict[str, tuple[float, ...]] | None = None
) -> list[dict[str, object]]:
    query = parse_query(text)
    [ranked] = rank_documents([record.document], query, "work_package")
    if value_scores is not None:
        ranked = dataclasses.replace(ranked, value_scores=value_scores)
    builder = ResultBuilder(query)
    [result] = builder.build([ScoredHit(record, ranked)])
    comments = result.model_dump(mode="json", by_alias=True)["matchedComments"]
    assert isinstance(comments, list)
    return comments


def test_at_most_five_comments_are_listed_best_first_then_in_order() -> None:
    texts = ["budget approval", "budget", "budget approval", "approval", "budget aproval"]
    texts += ["budget approval", "budget approval", "nothing to see"]
    record = work_package(4, "Finance", comments=list(enumerate(texts, start=1)))
    comments = _comment_results(record, "budget approval")
    assert [c["id"] for c in comments] == [1, 3, 6, 7, 5]
    assert comments[-1]["snippet"] == "budget aproval"


def test_the_rankings_value_scores_list_the_same_comments_and_are_used() -> None:
    texts = ["Budget approval arrived", "budget", "the approval of the budget", "unrelated"]
    record = work_package(5, "Finance", comments=list(enumerate(texts, start=1)))
    query = parse_query("budget approval")
    matcher = QueryMatcher(query)
    values = record.document.fields["comments"]
    scores = tuple(matcher.score(AnalyzedText(value.text)) for value in values)
    expected = _comment_results(record, "budget approval")
    assert [c["id"] for c in expected] == [1, 3]
    assert _comment_results(record, "budget approval", {"comments": scores}) == expected
    # the given scores decide (a ranking that scored comment 1 at 0 does not list it)
    dropped = {"comments": (0.0, *scores[1:])}
    assert [c["id"] for c in _comment_results(record, "budget approval", dropped)] == [3]
