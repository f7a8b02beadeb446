"""The vectorized scorer gives rank_records' answer to the last bit: ids, scores, count."""

from __future__ import annotations

import dataclasses
import random

import numpy as np
import pytest

from opindex.engine.packed import Packed24
from opindex.engine.score_rounding import round_scores
from opindex.engine.token_index import TokenIndex, lookup_all, term_matches
from opindex.engine.top_records import top_records, top_rounded
from opindex.engine.vector_rank import (
    SLICED_TOKENS,
    TermMatches,
    build_table,
    gather,
    phrase_owners,
    score_bound,
    score_table,
)
from opindex.search.document import FieldValue, SearchDocument
from opindex.search.fields import FIELD_SPECS, field_names, rank_documents_counted
from opindex.search.query import Query, parse_query
from opindex.search.rank import DEFAULT_MIN_SCORE
from opindex.search.tokenizer import token_texts

WORDS = [
    "login",
    "logout",
    "page",
    "server",
    "servers",
    "deploy",
    "deployment",
    "decide",
    "decision",
    "müller",
    "mueller",
    "cafe",
    "café",
    "alpha",
    "beta",
    "gamma",
    "the",
    "and",
    "onboarding",
    "checklist",
    "flamingo",
    "checkout",
    "dns",
    "heron",
    "zoe",
    "zoë",
    "a",
    "be",
    "api",
    "apis",
    "apex",
    "configuration",
    "config",
    "conf",
]


def _corpus(rng: random.Random, kind: str, count: int) -> list[SearchDocument]:
    def text() -> str:
        return " ".join(rng.choice(WORDS) for _ in range(rng.randint(0, 7)))

    documents = []
    for i in range(1, count + 1):
        fields = {
            name: tuple(FieldValue(text()) for _ in range(rng.randint(1, 3)))
            for name in field_names(kind)  # type: ignore[arg-type]
            if rng.random() < 0.8
        }
        documents.append(SearchDocument(kind=kind, id=i * 3, fields=fields))  # type: ignore[arg-type]
    return documents


class Analysed:
    """Records analysed as a commit would (one table, one vocabulary slice), scored by
    ``score_table`` query by query."""

    def __init__(self, documents: list[SearchDocument], kind: str) -> None:
        vocabulary: dict[str, int] = {}
        values = []
        for position, document in enumerate(documents):
            for field, name in enumerate(field_names(kind)):  # type: ignore[arg-type]
                for value in document.fields.get(name, ()):
                    tokens = token_texts(value.text)
                    ids = [vocabulary.setdefault(t, len(vocabulary)) for t in tokens]
                    values.append((position, field, ids))
        self.slices = [TokenIndex("\n" + "\n".join(vocabulary) + "\n")]
        self.table = build_table(values)
        self.weights = [spec.weight for spec in FIELD_SPECS[kind]]  # type: ignore[index]
        self.ids = np.array([d.id for d in documents], dtype=np.int64)

    def ranked(
        self, query: Query, allowed: np.ndarray, min_score: float
    ) -> list[tuple[int, float]]:
        """Every record passing the gate, as (id, score), best first."""
        phrase = lookup_all(token_texts(query.text), self.slices)
        scored = score_table(
            self.table,
            term_matches(query.terms, self.slices),
            np.array(phrase, dtype=np.int32) if phrase else None,
            self.weights,
            allowed,
            min_score,
        )
        best, scores = top_rounded(self.ids[scored.docs], scored.weighted, len(self.ids))
        return [
            (int(self.ids[scored.docs[i]]), score)
            for i, score in zip(best.tolist(), scores.tolist(), strict=True)
        ]


@pytest.mark.parametrize("kind", ["work_package", "wiki_page", "meeting"])
def test_equal_to_rank_records_on_random_records_and_queries(kind: str) -> None:
    rng = random.Random(kind)
    documents = _corpus(rng, kind, 400)
    analysed = Analysed(documents, kind)
    queries = ["login page", "the login page", "(login|logout) page", "log* pag*", "chekout"]
    queries += [" ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 4))) for _ in range(150)]
    # words matching no token: records may still pass (login page qqzx) or none can
    queries += ["qqzx login page", "qqzx vvyw login", "qqzx vvyw", "login page server qqzx"]
    everything = np.ones(len(documents), dtype=bool)
    for text in queries:
        query = parse_query(text)
        if query.containment or not query.terms:
            continue
        # every passing record, not only the first ten: each score is compared
        got = analysed.ranked(query, everything, DEFAULT_MIN_SCORE)
        ranked, passing = rank_documents_counted(documents, query, kind, limit=len(documents))  # type: ignore[arg-type]
        assert got == [(r.record.id, r.score) for r in ranked], text
        assert len(got) == passing, text


def test_top_records_orders_by_score_then_id_and_cuts_ties_by_id() -> None:
    ids = np.array([9, 3, 7, 1, 5], dtype=np.int64)
    scores = np.array([0.5, 0.9, 0.5, 0.5, 0.1])
    assert ids[top_records(ids, scores, 3)].tolist() == [3, 1, 7]
    assert ids[top_records(ids, scores, 10)].tolist() == [3, 1, 7, 9, 5]
    assert top_records(ids, scores, 0).tolist() == []


@pytest.mark.parametrize("seed", range(9))
def test_top_rounded_is_top_records_of_the_rounded_scores(seed: int) -> None:
    rng = np.random.default_rng(seed)
    # from 32,768 scores on, the best are selected above the best of a sample
    count = int(rng.integers(0, 3_000) if seed < 6 else rng.integers(33_000, 90_000))
    # scores bunched around half-cents, so many round together and some tie exactly
    cents = rng.integers(30, 100, count) / 100.0
    if seed == 8:  # ascending: the best all past the last sampled score
        cents = np.sort(cents)
    weighted = cents + rng.choice([-0.005, -1e-12, 0.0, 1e-12, 0.004], count)
    ids = rng.permutation(count * 3)[:count].astype(np.int64)
    rounded = round_scores(weighted)
    for limit in (0, 1, 10, 37, count - 1, count, count + 5):
        expected = top_records(ids, rounded, limit)
        best, scores = top_rounded(ids, weighted, limit)
        assert best.tolist() == expected.tolist(), limit
        assert scores.tolist() == rounded[expected].tolist()


def test_phrase_owners_are_runs_inside_one_value() -> None:
    tokens = np.array([1, 2, 3, 1, 2, 1, 2, 3, 9, 1], dtype=np.int32)
    owners = np.array([0, 0, 0, 4, 4, 5, 5, 5, 5, 7], dtype=np.int64)
    # value 4 ends with 1 2 and value 5 starts with 1 2 3: only whole runs inside a value
    assert phrase_owners(tokens, owners, np.array([1, 2, 3], dtype=np.int32)).tolist() == [0, 5]
    assert phrase_owners(tokens, owners, np.array([2, 1], dtype=np.int32)).tolist() == []
    assert phrase_owners(tokens, owners, np.array([1], dtype=np.int32)).tolist() == [0, 4, 5, 7]
    assert phrase_owners(tokens[:1], owners[:1], np.array([1, 2], dtype=np.int32)).tolist() == []


def test_score_bound_takes_each_terms_best_and_leaves_unmatched_terms_uncovered() -> None:
    def matches(*scores: float) -> TermMatches:
        return TermMatches(np.arange(len(scores), dtype=np.int64), np.array(scores))

    terms = [matches(0.9, 1.0), matches(), matches(0.75)]
    assert score_bound(terms, None) == ((1.0 + 0.0 + 0.75) / 3) * (2 / 3) * 0.85
    assert score_bound(terms, np.array([1, 2], dtype=np.int32)) == min(
        1.0, ((1.0 + 0.0 + 0.75) / 3) * (2 / 3) * 0.85 + 0.15
    )
    assert score_bound([matches(), matches()], None) == 0.0


@pytest.mark.parametrize("matched", [1, SLICED_TOKENS, SLICED_TOKENS + 1, 60])
@pytest.mark.parametrize("packed", [False, True])
def test_gather_reads_each_matched_tokens_values_in_order(matched: int, packed: bool) -> None:
    """A term's few tokens are read a slice each, many by one gather: the same values."""
    rng = np.random.default_rng(matched)
    values = [(doc, 0, rng.integers(0, 80, size=6).tolist()) for doc in range(300)]
    table = build_table(values)
    if packed:
        unpacked = np.asarray(table.posting_values[0 : len(table.posting_values)])
        table = dataclasses.replace(table, posting_values=Packed24.of(unpacked))
    ids = np.sort(rng.choice(80, size=matched, replace=False)).astype(np.int64)
    scores = rng.random(matched)
    found, found_scores = gather(table, TermMatches(ids, scores))
    expected_values, expected_scores = [], []
    for token, score in zip(ids.tolist(), scores.tolist(), strict=True):
        holders = [v for v, (_, _, tokens) in enumerate(values) if token in tokens]
        expected_values += holders
        expected_scores += [score] * len(holders)
    assert found.tolist() == expected_values
    assert found_scores.tolist() == expected_scores
