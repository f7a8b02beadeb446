"""Records left out before scoring are exactly ones that cannot pass the gate."""

from __future__ import annotations

import random

import numpy as np
import pytest
from tests.engine.test_vector_rank import WORDS, Analysed, _corpus

from opindex.engine.coverage import phrase_holds_every_term, terms_needed, within_reach
from opindex.search.fields import rank_documents_counted
from opindex.search.query import parse_query


def test_terms_needed_under_the_default_gate() -> None:
    assert terms_needed([1.0], 0.35) == 1
    assert terms_needed([1.0, 1.0], 0.35) == 2  # one of two: 0.2125
    assert terms_needed([1.0, 1.0, 1.0], 0.35) == 2  # two of three: 0.378
    assert terms_needed([1.0, 1.0, 1.0, 1.0], 0.35) == 3  # two of four: 0.2125
    assert terms_needed([0.6, 0.6, 0.6], 0.35) == 3  # fuzzy: two of three 0.2267
    assert terms_needed([1.0, 0.0, 0.0], 0.35) is None  # one term matching here: 0.094
    assert terms_needed([1.0, 1.0], 0.0) == 1


def test_terms_needed_keeps_a_score_that_rounds_up_to_the_gate() -> None:
    # two of three at 1.0 and 0.855: (1.855 / 3) * (2 / 3) * 0.85 = 0.35039 rounds to 0.35
    assert terms_needed([1.0, 0.855, 0.0], 0.35) == 2
    # 0.3449... rounds to 0.34: not enough
    assert terms_needed([1.0, 0.8259, 0.0], 0.35) is None


def _parts(*pairs: tuple[list[int], list[float]]) -> list[tuple[np.ndarray, np.ndarray]]:
    return [(np.array(v, dtype=np.int64), np.array(s, dtype=np.float64)) for v, s in pairs]


def test_within_reach_keeps_records_matching_enough_terms_well_enough() -> None:
    # values 0-1 belong to record 0, 2 to record 1, 3-4 to record 2, 5 to record 3
    value_doc = np.array([0, 0, 1, 2, 2, 3], dtype=np.int32)
    parts = _parts(
        ([0, 2, 3, 5], [1.0, 1.0, 0.6, 1.0]),  # term 1
        ([1, 4], [1.0, 0.6]),  # term 2: record 0 (cross-field) and record 2 (fuzzy)
    )
    allowed = np.ones(4, dtype=bool)
    narrowed = within_reach(value_doc, parts, allowed, 0.35, False)
    # record 0: both exact (0.85); record 2: both at 0.6 (0.51); records 1 and 3 hold one
    assert [v.tolist() for v, _ in narrowed] == [[0, 3], [1, 4]]
    # a stricter gate leaves record 2 (bound 0.51) out
    narrowed = within_reach(value_doc, parts, allowed, 0.6, False)
    assert [v.tolist() for v, _ in narrowed] == [[0], [1]]
    # a record not allowed is left out, whatever it holds
    allowed[0] = False
    narrowed = within_reach(value_doc, parts, allowed, 0.35, False)
    assert [v.tolist() for v, _ in narrowed] == [[3], [4]]


def test_within_reach_keeps_the_records_holding_the_phrase() -> None:
    value_doc = np.array([0, 1, 2], dtype=np.int32)
    parts = _parts(([0, 1, 2], [1.0, 1.0, 1.0]), ([2], [1.0]))
    allowed = np.ones(3, dtype=bool)
    holding_phrase = np.array([1], dtype=np.int32)  # record 1 holds the phrase
    narrowed = within_reach(value_doc, parts, allowed, 0.35, holding_phrase)
    assert [v.tolist() for v, _ in narrowed] == [[1, 2], [2]]
    # the bonus lifts a record matching every term: 2 of 2 at 0.3 is 0.255, 0.405 with it
    weak = _parts(([0], [0.3]), ([0], [0.3]))
    one = np.ones(1, dtype=bool)
    assert [v.tolist() for v, _ in within_reach(value_doc[:1], weak, one, 0.35, False)] == [[], []]
    assert [v.tolist() for v, _ in within_reach(value_doc[:1], weak, one, 0.35, True)] == [[0], [0]]


def test_phrase_holds_every_term_when_each_term_matches_one_of_its_tokens() -> None:
    phrase = np.array([4, 7], dtype=np.int32)
    assert phrase_holds_every_term(phrase, [np.array([1, 4]), np.array([7])])
    assert not phrase_holds_every_term(phrase, [np.array([1, 4]), np.array([8])])
    assert not phrase_holds_every_term(phrase, [np.array([1, 4]), np.array([], dtype=np.int64)])
    assert phrase_holds_every_term(phrase, [np.array([9, 12, 7 << 20]), np.array([7])]) is False
    rng = np.random.default_rng(3)
    for _ in range(200):  # as np.isin decides it, for ascending ids of any size
        ids = [np.unique(rng.integers(0, 50, rng.integers(0, 30))) for _ in range(3)]
        tokens = rng.integers(0, 50, 4).astype(np.int32)
        expected = all(bool(np.isin(tokens, term).any()) for term in ids)
        assert phrase_holds_every_term(tokens, ids) is expected


@pytest.mark.parametrize("min_score", [0.0, 0.2, 0.35, 0.5, 0.7])
def test_score_table_equals_rank_records_at_any_gate_and_filter(min_score: float) -> None:
    kind = "work_package"
    rng = random.Random(f"gate-{min_score}")
    documents = _corpus(rng, kind, 300)
    analysed = Analysed(documents, kind)
    allowed = np.array([rng.random() < 0.7 for _ in documents])
    kept = [d for d, keep in zip(documents, allowed.tolist(), strict=True) if keep]
    queries = [" ".join(rng.choice(WORDS) for _ in range(rng.randint(2, 5))) for _ in range(80)]
    queries += ["login page serer", "the login page", "chekout flamingo heron dns"]
    for text in queries:
        query = parse_query(text)
        got = analysed.ranked(query, allowed, min_score)
        ranked, passing = rank_documents_counted(
            kept, query, kind, min_score=min_score, limit=len(documents)
        )
        assert got == [(r.record.id, r.score) for r in ranked], text
        assert len(got) == passing, text
