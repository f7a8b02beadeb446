"""The exhaustive re-rank skips only records that cannot score, and the substring baseline."""

from __future__ import annotations

import random

import pytest

from evallib.baseline import SubstringBaseline
from evallib.corpus_view import CorpusItem
from evallib.oracle import ExhaustiveRanker, corpus_document
from evallib.querygen import value_words
from evallib.typos import inject_typo
from opindex.search.analysis import analyze_document
from opindex.search.document import KINDS
from opindex.search.fields import rank_documents


def _queries(items: list[CorpusItem], count: int) -> list[tuple[str, str]]:
    rng = random.Random(2)
    made = []
    for _ in range(count):
        item = rng.choice(items)
        words = [w.surface for text in item.texts() for w in value_words(text)]
        picked = rng.sample(words, min(len(words), rng.randint(1, 3)))
        if rng.random() < 0.4 and len(picked[0]) >= 5:
            picked[0] = inject_typo(picked[0], rng)[0]
        made.append((item.kind, " ".join(picked)))
    made += [("work_package", "ab"), ("meeting", "grafana kestrel"), ("wiki_page", "runbook*")]
    return made


def test_exhaustive_ranker_equals_ranking_every_record(small_items: list[CorpusItem]) -> None:
    ranker = ExhaustiveRanker(corpus_document(item) for item in small_items)
    everything = {
        kind: [analyze_document(corpus_document(i)) for i in small_items if i.kind == kind]
        for kind in KINDS
    }
    for kind, query in _queries(small_items, 60):
        full = rank_documents(everything[kind], query, kind, limit=None)  # type: ignore[arg-type]
        assert ranker.rank(kind, query, limit=None) == [r.record.id for r in full], query  # type: ignore[arg-type]


def _item(kind: str, record_id: int, title: str, updated: str) -> CorpusItem:
    return CorpusItem(kind, record_id, title, {"subject": (title,)}, updated)  # type: ignore[arg-type]


@pytest.fixture
def baseline() -> SubstringBaseline:
    return SubstringBaseline(
        [
            _item("work_package", 1, "Fix kestrel timeout", "2025-01-01T00:00:00Z"),
            _item("work_package", 2, "Kestrel TIMEOUT again", "2025-03-01T00:00:00Z"),
            _item("work_package", 3, "Unrelated", "2025-02-01T00:00:00Z"),
        ]
    )


def test_baseline_is_a_case_insensitive_title_substring_newest_first(
    baseline: SubstringBaseline,
) -> None:
    assert baseline.search("work_package", "kestrel timeout") == [2, 1]
    assert baseline.search("work_package", "  kestrel ") == [2, 1]
    assert baseline.search("work_package", "timeout kestrel") == []
    assert baseline.search("work_package", "kestrl") == []
    assert baseline.search("work_package", "kestrel", limit=1) == [2]
    assert baseline.search("meeting", "kestrel") == []


def test_split_across_fields_names_the_fields_that_share_the_words() -> None:
    from evallib.diagnose import split_across_fields
    from opindex.search.document import FieldValue, SearchDocument

    document = SearchDocument(
        "work_package",
        1,
        {
            "subject": (FieldValue("Translate the export job"),),
            "description": (FieldValue("The lemur workstream is late."),),
        },
    )
    assert split_across_fields(document, "lemur export job") == (
        "subject: export, job; description: lemur"
    )
    assert split_across_fields(document, "export job") == ""  # one field has every word
    assert split_across_fields(document, "lemur grafana") == ""  # not covered at all


def test_a_miss_outranked_by_heavier_fields_is_explained(small_items: list[CorpusItem]) -> None:
    from evallib.diagnose import explain_miss
    from evallib.querygen import KnownItemQuery
    from evallib.search_paths import Answer
    from opindex.search.document import FieldValue, SearchDocument

    documents = {
        ("work_package", 1): SearchDocument(
            "work_package",
            1,
            {
                "subject": (FieldValue("Renew TLS certificate"),),
                "description": (FieldValue("The tundra mail relay is late."),),
            },
        ),
        **{
            ("work_package", i): SearchDocument(
                "work_package", i, {"subject": (FieldValue(f"Upgrade the mail relay {i}"),)}
            )
            for i in range(2, 14)
        },
    }
    ranker = ExhaustiveRanker(documents.values())
    query = KnownItemQuery("c-1", "closed_work_package", "work_package", "tundra mail relay", 1)
    found = ranker.rank("work_package", query.query)
    entry = explain_miss(query, Answer(ids=tuple(found)), ranker, documents)
    assert 1 not in found
    assert entry["reason"].startswith("outranked: 12 records rank above it")
    assert (
        "it matches better in description (field score 1.00) than the first result in "
        "subject (0.38)" in entry["reason"]
    )
    assert entry["expected_title"] == "Renew TLS certificate"


def test_unmatched_terms_name_the_words_the_record_lacks() -> None:
    from evallib.diagnose import unmatched_terms
    from opindex.search.document import FieldValue, SearchDocument

    document = SearchDocument(
        "work_package", 1, {"description": (FieldValue("Inês saw a heron at the lake."),)}
    )
    assert unmatched_terms(document, "Inês herno") == ["herno"]  # a swap is two edits
    assert unmatched_terms(document, "ines heron") == []
