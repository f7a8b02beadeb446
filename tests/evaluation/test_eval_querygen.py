"""The known-item query generator on a small generated corpus."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from rapidfuzz.distance import Levenshtein

from evallib.corpus_view import TITLE_FIELD, CorpusItem
from evallib.folding import fold
from evallib.oracle import ExhaustiveRanker, corpus_document
from evallib.query_words import MAX_AMBIGUITY, CorpusStats, value_words
from evallib.querygen import CATEGORIES, KnownItemQuery, QueryGenerator
from opindex.search.score import score_token
from opindex.search.tokenizer import token_texts


@pytest.fixture(scope="module")
def ranker(small_items: list[CorpusItem]) -> ExhaustiveRanker:
    return ExhaustiveRanker(corpus_document(item) for item in small_items)


@pytest.fixture(scope="module")
def queries(small_items: list[CorpusItem], ranker: ExhaustiveRanker) -> list[KnownItemQuery]:
    generator = QueryGenerator(small_items, seed=4, per_category=8, zero_hits=ranker.zero_hits)
    return generator.generate()


def _item(items: list[CorpusItem], query: KnownItemQuery) -> CorpusItem:
    return next(i for i in items if i.kind == query.kind and i.id == query.expected_id)


def _tokens(item: CorpusItem, *fields: str) -> set[str]:
    names = fields or tuple(item.fields)
    return {t for n in names for v in item.fields.get(n, ()) for t in token_texts(v)}


def test_every_category_is_filled_and_numbered(queries: list[KnownItemQuery]) -> None:
    counts = Counter(q.category for q in queries)
    assert set(counts) == set(CATEGORIES)
    assert all(n == 8 for n in counts.values())
    assert len({q.qid for q in queries}) == len(queries)
    assert all(q.qid.startswith(q.category + "-") for q in queries)


def test_known_items_come_from_the_expected_record(
    queries: list[KnownItemQuery], small_items: list[CorpusItem]
) -> None:
    for query in queries:
        if query.expected_id is None:
            continue
        item = _item(small_items, query)
        words = {t for w in query.words for t in token_texts(w)}
        assert 1 <= len(query.words) <= 4
        fields = (query.field or "").split("+")
        assert words <= set().union(*(_tokens(item, field) for field in fields))
        assert 1 <= query.ambiguity <= MAX_AMBIGUITY


def test_split_field_queries_need_two_fields(
    queries: list[KnownItemQuery], small_items: list[CorpusItem]
) -> None:
    split = [q for q in queries if q.category == "split_field"]
    assert split
    for query in split:
        item = _item(small_items, query)
        title_field, deep_field = (query.field or "").split("+")
        words = {t for w in query.words for t in token_texts(w)}
        assert len(words) == 2
        assert not words <= _tokens(item, title_field)
        assert not words <= _tokens(item, deep_field)


def test_title_queries_use_title_words_in_order(
    queries: list[KnownItemQuery], small_items: list[CorpusItem]
) -> None:
    for query in (q for q in queries if q.category == "title"):
        item = _item(small_items, query)
        assert query.field == TITLE_FIELD[item.kind]
        title_tokens = token_texts(item.title)
        positions = [title_tokens.index(token_texts(w)[0]) for w in query.words]
        assert positions == sorted(positions)
        assert query.query == " ".join(query.words)


def test_deep_only_words_cannot_match_the_title(
    queries: list[KnownItemQuery], small_items: list[CorpusItem]
) -> None:
    deep = [q for q in queries if q.category == "deep_only"]
    assert deep
    for query in deep:
        item = _item(small_items, query)
        title = _tokens(item, TITLE_FIELD[item.kind])
        assert query.field not in {"subject", "title"}
        for token in token_texts(query.query):
            assert all(score_token(token, t) == 0 for t in title), (query, token)


def test_typo_queries_differ_by_one_realistic_typo(queries: list[KnownItemQuery]) -> None:
    for query in (q for q in queries if q.category == "typo"):
        typed = query.query.split()
        assert len(typed) == len(query.words)
        changed = [(w, t) for w, t in zip(query.words, typed, strict=True) if w != t]
        assert len(changed) == 1, query
        original, typo = changed[0]
        assert len(original) >= 5
        assert 1 <= Levenshtein.distance(original.lower(), typo) <= 2
        assert query.note.split(":")[0] in {"drop", "swap", "insert", "substitute"}


def test_reordered_queries_keep_the_words_but_not_their_order(
    queries: list[KnownItemQuery],
) -> None:
    for query in (q for q in queries if q.category == "reordered"):
        assert sorted(query.query.split()) == sorted(" ".join(query.words).split())
        assert query.query != " ".join(query.words)


def test_diacritics_queries_are_typed_without_them(queries: list[KnownItemQuery]) -> None:
    for query in (q for q in queries if q.category == "diacritics"):
        assert query.query.isascii()
        assert any(not w.isascii() for w in query.words)
        assert query.query in {
            " ".join(fold(w, "strip") for w in query.words),
            " ".join(fold(w, "transliterate") for w in query.words),
        }


def test_closed_work_package_queries_expect_closed_ones(
    queries: list[KnownItemQuery], small_items: list[CorpusItem]
) -> None:
    for query in (q for q in queries if q.category == "closed_work_package"):
        assert query.kind == "work_package" and _item(small_items, query).closed


def test_no_hit_and_relaxation_queries_match_nothing_as_written(
    queries: list[KnownItemQuery], ranker: ExhaustiveRanker
) -> None:
    for query in queries:
        if query.category in ("no_hit", "needs_relaxation"):
            assert ranker.zero_hits(query.kind, query.query), query
    assert all(q.expected_id is None for q in queries if q.category == "no_hit")


def test_foreign_words_are_out_of_fuzzy_reach(small_items: list[CorpusItem]) -> None:
    generator = QueryGenerator(small_items, per_category=1)
    stats = CorpusStats(small_items)
    assert len(generator.foreign) >= 10
    assert not any(stats.reaches(word) for word in generator.foreign)
    assert stats.reaches("kestrl")  # a typo of a corpus word is within reach


def test_a_refusing_oracle_keeps_unverified_queries_out(small_items: list[CorpusItem]) -> None:
    generator = QueryGenerator(small_items, per_category=3, zero_hits=lambda kind, text: False)
    made = generator.generate()
    assert not [q for q in made if q.category in ("no_hit", "needs_relaxation")]


def test_same_seed_same_queries_and_json_round_trip(small_items: list[CorpusItem]) -> None:
    first = QueryGenerator(small_items, seed=9, per_category=4).generate()
    second = QueryGenerator(small_items, seed=9, per_category=4).generate()
    other = QueryGenerator(small_items, seed=10, per_category=4).generate()
    assert first == second
    assert first != other
    dumped = json.loads(json.dumps([q.to_json() for q in first]))
    assert [KnownItemQuery.from_json(d) for d in dumped] == first


def test_unknown_category_in_a_query_file_is_refused() -> None:
    data = KnownItemQuery("x-1", "title", "wiki_page", "q", 1).to_json()
    data["category"] = "vibes"
    with pytest.raises(ValueError, match="unknown query category"):
        KnownItemQuery.from_json(data)


def test_value_words_skip_stop_words_numbers_and_repeats() -> None:
    words = value_words("The 502 errors of the Müller export: export quickly")
    assert [w.surface for w in words] == ["errors", "Müller", "export", "quickly"]
    assert [w.token for w in words][1] == "muller"
