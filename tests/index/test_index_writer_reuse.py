"""The side writers of a commit serve the next one only while nobody else wrote (D169)."""

from __future__ import annotations

from pathlib import Path

import pytest
from index_fixtures import work_package

from opindex.engine import analysis_writer
from opindex.index import TenantIndex
from opindex.records import Record
from opindex.search.fields import rank_documents
from opindex.search.query import parse_query

QUERIES = ("budget", "aproval", "alpha beta", "gamma*", "delta epsilon", "zeta")


def _answers(index: TenantIndex) -> list[list[tuple[int, float]]]:
    answers = []
    for text in QUERIES:
        found, scores, _ = index.ranked(parse_query(text), "work_package", limit=1000)
        answers.append([(r.id, s) for r, s in zip(found, scores, strict=True)])
    return answers


def _expected(records: dict[int, Record]) -> list[list[tuple[int, float]]]:
    documents = [r.document for r in records.values()]
    return [
        [(r.record.id, r.score) for r in rank_documents(documents, parse_query(t), "work_package")]
        for t in QUERIES
    ]


def _token_ids(index: TenantIndex) -> list[str]:
    view = index._generation().analysis.view()
    return [index.token(local) for index in view.vocabulary for local in range(index.size)]


def _counting(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    built = [0]
    real = analysis_writer.AnalysisWriter.__init__

    def counted(self: analysis_writer.AnalysisWriter, *args: object) -> None:
        built[0] += 1
        real(self, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(analysis_writer.AnalysisWriter, "__init__", counted)
    return built


def test_consecutive_commits_of_one_index_build_the_token_table_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    built = _counting(monkeypatch)
    index = TenantIndex.create(tmp_path / "index")
    records: dict[int, Record] = {}
    for step, words in enumerate(["budget approval", "alpha beta", "gamma delta", "epsilon"]):
        record = work_package(step + 1, words, f"{words} zeta")
        records[record.id] = record
        index.upsert([record])
        index.commit()
    assert built[0] == 1
    assert _answers(index) == _expected(records)
    assert _answers(TenantIndex(tmp_path / "index")) == _expected(records)


def test_a_commit_by_another_index_in_between_is_noticed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = TenantIndex.create(tmp_path / "index")
    second = TenantIndex(tmp_path / "index")
    records: dict[int, Record] = {}
    steps = [
        (first, "budget approval alpha"),
        (second, "beta gamma"),  # new tokens, ids the first index does not know of
        (first, "delta gamma aproval"),
        (first, "epsilon"),
        (second, "zeta budget"),
    ]
    for record_id, (index, words) in enumerate(steps, start=1):
        record = work_package(record_id, words)
        records[record_id] = record
        index.upsert([record])
        index.commit()
    reader = TenantIndex(tmp_path / "index")
    tokens = _token_ids(reader)
    assert len(tokens) == len(set(tokens))  # every token has one id
    words = {word for _, text in steps for word in text.split()}
    assert set(tokens) == words
    # substring look-ups see every commit's tokens: none was written over
    assert reader.vocabulary().find("", limit=None) == tokens
    for index in (first, second, TenantIndex(tmp_path / "index")):
        assert _answers(index) == _expected(records)
