"""Invariant 1: the terms Tantivy indexes are exactly our tokenizer's tokens."""

from __future__ import annotations

import random

import tantivy
from index_fixtures import work_package

from opindex.index import TenantIndex
from opindex.index import schema as s
from opindex.index.record_codec import index_tokens
from opindex.search.tokenizer import token_texts

TRICKY_TEXTS = [
    "Müller and MULLER and Mu\u0308ller",  # composed, upper, decomposed
    "Straße STRASSE straße",
    "ﬁnance oﬃce ﬂow",  # ligatures decompose under NFKD
    "İstanbul ıstanbul ISTANBUL",  # dotted / dotless i
    "ΟΔΟΣ οδός ΣΊΣΥΦΟΣ ς σ",  # final sigma
    "café cafe\u0301 CAFÉ naïve coöperate",
    "日本語のテキスト 中文 한국어 ไทย",
    "x² H₂O ½ Ⅻ ⑤ Ⓐ",  # compatibility digits and letters
    "ǅemal ǆ ǉ",  # title-case digraphs
    "tab\tsep nbsp\u00a0joined zero\u200bwidth em\u2003space line\u2028sep",
    "emoji😀word snake_case kebab-case dotted.name v2.0-rc1 3.14 #42 @user",
    "Ⅳ ⅳ Å Å Ω Ω K K",  # canonical singletons
    "ﬀ ﬃ ﬆ ŉ ǰ ΐ",  # expanding lowercase / decomposition
    "a" * 300,  # long but below the cut
    "",
    "   ",
    "--- *** ///",
]

ALPHABET = (
    "abcxyzABCXYZ0189 \t\n-_.,;:/\\()[]*'\"#@"
    "äöüßÄÖÜéèêçñåøæœÆŒıİσςΣΟΔ日本語한국ไทย"
    "\u0301\u0308\u0327\u200b\u00a0\u2003\ufb01\ufb00\u2168\u00b2\u24b6\u01c5"
)


def _random_texts(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, 60))) for _ in range(count)]


def _indexed_terms(index: TenantIndex, record_id: int, vocabulary: list[str]) -> set[str]:
    """The terms of the ``all`` field of one record, read back from Tantivy (the field
    keeps which records hold a term, no frequencies: DECISIONS D137)."""
    searcher = index._snapshot().searcher  # the test reads Tantivy directly on purpose
    schema = index._snapshot().generation.schema
    own = tantivy.Query.term_query(schema, s.KEY, f"work_package:{record_id}")
    found: set[str] = set()
    for term in vocabulary:
        term_query = tantivy.Query.term_query(schema, s.ALL, term)
        query = tantivy.Query.boolean_query(
            [(tantivy.Occur.Must, own), (tantivy.Occur.Must, term_query)]
        )
        if searcher.search(query, 1).hits:
            found.add(term)
    return found


def test_indexed_terms_equal_our_tokens_token_for_token(index: TenantIndex) -> None:
    texts = TRICKY_TEXTS + _random_texts(40, seed=7)
    index.upsert(work_package(i, "subject", text) for i, text in enumerate(texts))
    index.commit()
    searcher = index._snapshot().searcher
    vocabulary = [term for term, _ in searcher.terms_with_prefix(s.ALL, "")]

    expected_vocabulary = {t for text in texts for t in token_texts(text)} | {"subject"}
    assert set(vocabulary) == expected_vocabulary
    for record_id, text in enumerate(texts):
        assert _indexed_terms(index, record_id, vocabulary) == {"subject", *token_texts(text)}


def test_only_the_all_field_indexes_text() -> None:
    # Nothing reads per-field text fields or term frequencies (DECISIONS D137).
    text_fields = [
        name for name in ("subject", "description", "comments") if _has_field(f"f_{name}")
    ]
    assert text_fields == []


def _has_field(name: str) -> bool:
    try:
        tantivy.Query.term_query(s.build_schema(), name, "x")
    except ValueError:
        return False
    return True


def test_all_field_holds_the_union_of_the_fields() -> None:
    # Checked on the tokens fed to Tantivy: subject + description + comments.
    record = work_package(1, "Straße ﬁx", "Müller", ["Ω café", "x²"])
    expected = [t for value in ("Straße ﬁx", "Müller", "Ω café", "x²") for t in token_texts(value)]
    tokens = [
        t for value in record.document.fields.values() for v in value for t in index_tokens(v.text)
    ]
    assert tokens == expected


def test_a_token_longer_than_tantivy_accepts_is_cut_not_dropped(index: TenantIndex) -> None:
    huge = "b" * (s.MAX_TOKEN_CHARS + 500)
    index.upsert([work_package(1, "s", f"head {huge} tail")])
    index.commit()
    searcher = index._snapshot().searcher
    terms = {term for term, _ in searcher.terms_with_prefix(s.ALL, "")}
    assert terms == {"s", "head", "b" * s.MAX_TOKEN_CHARS, "tail"}
