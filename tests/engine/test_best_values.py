"""Fields' best values from the analysed records give rank_documents' answer exactly."""

from __future__ import annotations

import random

import numpy as np
import pytest
from tests.engine.test_vector_rank import WORDS, _corpus

from opindex.engine.best_values import field_bests
from opindex.engine.token_index import TokenIndex, lookup_all, term_matches
from opindex.engine.top_records import top_rounded
from opindex.engine.vector_rank import ValueTable, build_table, score_table
from opindex.search import RecordBests
from opindex.search.analysis import AnalyzedText
from opindex.search.document import FieldValue, Kind, SearchDocument
from opindex.search.fields import FIELD_SPECS, describe_documents, field_names, rank_documents
from opindex.search.match import QueryMatcher
from opindex.search.query import Query, parse_query
from opindex.search.rank import DEFAULT_MIN_SCORE, Ranked
from opindex.search.tokenizer import token_texts


class _Analysed:
    """Documents of one kind as the analysis store holds them, with one vocabulary."""

    def __init__(self, documents: list[SearchDocument], kind: Kind) -> None:
        self.documents, self.kind = documents, kind
        vocabulary: dict[str, int] = {}
        values = []
        for position, document in enumerate(documents):
            for field, name in enumerate(field_names(kind)):
                for value in document.fields.get(name, ()):
                    ids = [
                        vocabulary.setdefault(t, len(vocabulary)) for t in token_texts(value.text)
                    ]
                    values.append((position, field, ids))
        self.tokens = list(vocabulary)
        self.slices = [TokenIndex("\n" + "\n".join(self.tokens) + "\n")]
        self.table: ValueTable = build_table(values)

    def described(self, query: Query, limit: int) -> list[tuple[int, float, RecordBests]]:
        terms = term_matches(query.terms, self.slices)
        found = lookup_all(token_texts(query.text), self.slices)
        phrase = np.array(found, dtype=np.int32) if found else None
        weights = [spec.weight for spec in FIELD_SPECS[self.kind]]
        allowed = np.ones(len(self.documents), dtype=bool)
        scored = score_table(self.table, terms, phrase, weights, allowed, DEFAULT_MIN_SCORE)
        ids = np.array([d.id for d in self.documents], dtype=np.int64)
        best, scores = top_rounded(ids[scored.docs], scored.weighted, limit)
        docs = scored.docs[best].tolist()
        bests = field_bests(self.table, terms, phrase, docs)
        return list(zip(docs, scores.tolist(), bests, strict=True))

    def describe(self, query: Query, limit: int) -> list[Ranked[SearchDocument]]:
        entries = [(self.documents[d], s, b) for d, s, b in self.described(query, limit)]
        return list(describe_documents(entries, self.kind, self.tokens.__getitem__))


@pytest.mark.parametrize("kind", ["work_package", "wiki_page", "meeting"])
def test_equal_to_rank_documents_with_fields_snippets_and_value_positions(kind: Kind) -> None:
    rng = random.Random(f"bests-{kind}")
    analysed = _Analysed(_corpus(rng, kind, 300), kind)
    queries = ["login page", "the login page", "(login|logout) page", "log* pag*", "müller café"]
    queries += [" ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 4))) for _ in range(120)]
    for text in queries:
        query = parse_query(text)
        if query.containment or not query.terms:
            continue
        expected = rank_documents(analysed.documents, query, kind, limit=10)
        assert analysed.describe(query, 10) == expected, text


def test_a_field_reports_its_first_best_value_and_the_tokens_to_centre_on() -> None:
    document = SearchDocument(
        kind="work_package",
        id=1,
        fields={
            "subject": (FieldValue("plan"), FieldValue("Budget plans"), FieldValue("budget")),
            "description": (FieldValue(""), FieldValue("the budget, the plan")),
        },
    )
    analysed = _Analysed([document], "work_package")
    query = parse_query("budget plan")
    ((_, _, found),) = analysed.described(query, 10)
    bests = found.fields
    # subject: "Budget plans" scores 0.85 * (1 + 0.9) / 2 = 0.8075, "plan" and "budget" 0.2125
    assert [(b.field, b.value_index) for b in bests] == [(0, 1), (1, 1)]
    assert [analysed.tokens[t] for t in bests[0].targets] == ["budget", "plans"]
    assert bests[1].score == pytest.approx(0.85)  # both words, not consecutive: no bonus
    assert found.values[0] == pytest.approx((0.2125, 0.8075, 0.2125))
    assert found.values[1] == pytest.approx((0.0, 0.85))
    assert analysed.describe(query, 10) == rank_documents([document], query, "work_package")


@pytest.mark.parametrize("kind", ["work_package", "meeting"])
def test_every_value_score_is_the_query_matchers_score_of_its_text(kind: Kind) -> None:
    rng = random.Random(f"values-{kind}")
    analysed = _Analysed(_corpus(rng, kind, 200), kind)
    queries = ["the login page", "(login|logout) page", "log* pag*", "müller café"]
    queries += [" ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 4))) for _ in range(60)]
    compared = 0
    for text in queries:
        query = parse_query(text)
        if query.containment or not query.terms:
            continue
        matcher = QueryMatcher(query)
        for ranked in analysed.describe(query, 10):
            assert ranked.value_scores is not None
            for name, values in ranked.record.fields.items():
                expected = tuple(matcher.score(AnalyzedText(value.text)) for value in values)
                assert ranked.value_scores.get(name, ()) == expected, (text, name)
                compared += len(values)
    assert compared > 1000


def test_needs_a_term() -> None:
    analysed = _Analysed([SearchDocument(kind="news", id=1, fields={})], "news")
    with pytest.raises(ValueError):
        field_bests(analysed.table, [], None, [0])
