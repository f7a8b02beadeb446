"""The tokens the analysis store holds are exactly our tokenizer's tokens, value by value
(Tantivy indexes no text: DECISIONS D180)."""

from __future__ import annotations

import itertools
import random

import numpy as np
import tantivy
from index_fixtures import work_package

from opindex.engine.vector_rank import value_tokens
from opindex.index import TenantIndex
from opindex.index import schema as s
from opindex.search.query import parse_query
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
    "a" * 300,
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


def _stored_values(index: TenantIndex, record_id: int) -> list[list[str]]:
    """The token texts of each stored value of a work package, in order, as the
    analysis store holds them (the test reads the store directly on purpose)."""
    view = index._snapshot().generation.analysis.view()
    ((segment, _),) = view.kinds["work_package"]
    (position,) = np.flatnonzero(segment.ids == record_id)
    values = np.flatnonzero(segment.table.value_doc == position)
    tokens, sizes = value_tokens(segment.table, values)
    texts = [view.token_text(int(token)) for token in tokens]
    bounds = np.r_[0, np.cumsum(sizes)].tolist()
    return [texts[a:b] for a, b in itertools.pairwise(bounds)]


def test_stored_tokens_equal_our_tokens_value_for_value(index: TenantIndex) -> None:
    texts = TRICKY_TEXTS + _random_texts(40, seed=7)
    index.upsert(work_package(i, "subject", text) for i, text in enumerate(texts))
    index.commit()
    vocabulary = index.vocabulary().find("", limit=None)
    assert vocabulary is not None
    assert sorted(vocabulary) == sorted(
        {t for text in texts for t in token_texts(text)} | {"subject"}
    )
    for record_id, text in enumerate(texts):
        stored = _stored_values(index, record_id)
        assert stored == [["subject"], token_texts(text)], text


def test_tantivy_indexes_no_text_field() -> None:
    # Nothing reads a Tantivy text field any more: records, keys and filters only.
    schema = s.build_schema()
    for name in ("all", "subject", "description", "comments"):
        try:
            tantivy.Query.term_query(schema, name, "x")
        except ValueError:
            continue
        raise AssertionError(f"the schema has a field {name!r}")


def test_a_very_long_token_is_stored_whole_and_found_by_substring(index: TenantIndex) -> None:
    huge = "b" * 20_000 + "tailpart"
    index.upsert([work_package(1, "s", f"head {huge} tail"), work_package(2, "s", "head")])
    index.commit()
    assert _stored_values(index, 1) == [["s"], ["head", huge, "tail"]]
    found = index.candidates(parse_query("btailpart", "exact"), "work_package")
    assert [record.id for record in found] == [1]
    assert found.total == 1
