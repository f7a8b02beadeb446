"""Invariant 2: candidates() returns every record the scorer could accept (the oracle).

Two references, both exhaustive over the whole corpus:
- the token rule: some token of some field scores > 0 against some query alternative
  (score_token / score_prefix_token), or, for containment queries, some raw field value
  contains the query ignoring case;
- the real ranker (rank_documents with min_score 0), which must be a subset of it.
"""

from __future__ import annotations

import random
import tempfile
from collections.abc import Sequence
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from index_fixtures import meeting, wiki_page, work_package

from opindex.index import TenantIndex
from opindex.records import Record
from opindex.search.analysis import analyze_document
from opindex.search.fields import rank_documents
from opindex.search.query import Query, alternative_score, parse_query
from opindex.search.tokenizer import token_texts

WORDS = [
    "budget", "approval", "approve", "aproval", "decision", "decide", "hiring", "hire",
    "Müller", "muller", "MULLER", "Mu\u0308ller", "straße", "STRASSE", "ΟΔΟΣ", "οδός",
    "σοφός", "café", "cafe\u0301", "ﬁnance", "İstanbul", "ıstanbul", "日本語", "x²", "ab",
    "a", "qa", "server", "serv", "observer", "reserve", "migration", "datacenter", "plan",
    "plans", "v2", "2024", "rc1", "the", "about", "what", "Ⅻ", "ǅemal", "kubernetes",
    "kubernetse", "deployment", "deploy", "redeploy", "ﬀ", "ŉ",
    "supercalifragilisticexpialidocious2024", "internationalizationlocalizationsupport",
]  # fmt: skip
SEPARATORS = [" ", " ", " ", "-", "_", ". ", "\n", "/", "", "—", "\u00a0", "*", "'"]
ALPHABET = "abcdeßσςΣüÜé\u0301日ⅫİI0-_ *.'()|"
KINDS = ("work_package", "wiki_page", "meeting")


def _text(rng: random.Random, words: int) -> str:
    parts = []
    for _ in range(words):
        parts.append(rng.choice(WORDS) if rng.random() < 0.85 else _noise(rng, 1, 7))
        parts.append(rng.choice(SEPARATORS))
    return "".join(parts).strip()


def _noise(rng: random.Random, low: int, high: int) -> str:
    return "".join(rng.choice(ALPHABET) for _ in range(rng.randint(low, high)))


def _record(rng: random.Random, kind: str, record_id: int) -> Record:
    if kind == "work_package":
        comments = [_text(rng, rng.randint(1, 6)) for _ in range(rng.randint(0, 2))]
        return work_package(record_id, _text(rng, 3), _text(rng, rng.randint(0, 12)), comments)
    if kind == "wiki_page":
        return wiki_page(record_id, _text(rng, 2), _text(rng, rng.randint(0, 12)))
    agenda = [_text(rng, rng.randint(1, 4)) for _ in range(rng.randint(0, 3))]
    return meeting(record_id, _text(rng, 3), agenda, author=_text(rng, 2))


def _typo(rng: random.Random, token: str) -> str:
    chars = list(token)
    for _ in range(rng.randint(1, 2)):
        op = rng.choice("sidt")
        i = rng.randrange(len(chars) + (op == "i")) if chars or op == "i" else 0
        if op == "s" and chars:
            chars[i] = rng.choice("abcdeüσ")
        elif op == "i":
            chars.insert(i, rng.choice("abcdeüσ"))
        elif op == "d" and len(chars) > 1:
            del chars[i]
        elif op == "t" and i + 1 < len(chars):
            chars[i], chars[i + 1] = chars[i + 1], chars[i]
    return "".join(chars)


def _query_word(rng: random.Random, tokens: Sequence[str]) -> str:
    token = rng.choice(tokens) if tokens else "budget"
    shape = rng.randrange(8)
    if shape == 0:
        return token
    if shape == 1:
        return _typo(rng, token)
    if shape == 2:
        return token[: rng.randint(1, max(1, len(token)))]
    if shape == 3:
        start = rng.randrange(len(token))
        return token[start : start + rng.randint(2, 6)]
    if shape == 4:
        return token[: rng.randint(1, max(1, len(token)))] + "*"
    if shape == 5:
        return f"({_typo(rng, token)}|{rng.choice(tokens or ['x'])})"
    if shape == 6:
        return rng.choice(WORDS)
    return _noise(rng, 1, 6)


class Corpus:
    """Records with their raw values and tokens computed once, for the references."""

    def __init__(self, records: Sequence[Record]) -> None:
        self.records = list(records)
        self.values = {
            (r.document.kind, r.id): [v.text for vs in r.document.fields.values() for v in vs]
            for r in self.records
        }
        self.tokens = {
            key: {t for value in values for t in token_texts(value)}
            for key, values in self.values.items()
        }
        self.vocabulary = sorted(set().union(*self.tokens.values()))
        self.analyzed = {key: analyze_document(r.document) for key, r in self._keyed()}

    def _keyed(self) -> list[tuple[tuple[str, int], Record]]:
        return [((r.document.kind, r.id), r) for r in self.records]

    def token_rule(self, query: Query, kind: str) -> set[int]:
        """Ids of *kind* with a token scoring > 0 (or a value containing the needle)."""
        keys = [key for key in self.values if key[0] == kind]
        if query.containment:
            needle = (query.text if query.match_mode == "exact" else query.text.strip()).lower()
            return {
                key[1] for key in keys if any(needle in value.lower() for value in self.values[key])
            }
        positive = {
            token
            for token in self.vocabulary
            if any(
                alternative_score(alternative, token) > 0
                for term in query.terms
                for alternative in term.alternatives
            )
        }
        return {key[1] for key in keys if self.tokens[key] & positive}

    def ranked(self, query: Query, kind: str) -> set[int]:
        """Ids the real ranker returns with min_score 0."""
        documents = [doc for key, doc in self.analyzed.items() if key[0] == kind]
        return {r.record.id for r in rank_documents(documents, query, kind, min_score=0.0)}

    def ranked_scores(self, query: Query, kind: str) -> list[tuple[int, float]]:
        """(id, score) the real ranker returns with the default gate, best first."""
        documents = [doc for key, doc in self.analyzed.items() if key[0] == kind]
        return [(r.record.id, r.score) for r in rank_documents(documents, query, kind)]

    def query(self, rng: random.Random) -> Query:
        if rng.random() < 0.3:  # exact mode: a slice of a raw value, with its case changed
            values = [v for vs in self.values.values() for v in vs if v]
            value = rng.choice(values or ["--"])
            start = rng.randrange(len(value))
            needle = value[start : start + rng.randint(1, 12)]
            needle = rng.choice([needle, needle.upper(), needle.lower(), needle.swapcase()])
            if rng.random() < 0.2:
                needle = _noise(rng, 1, 4)
            return parse_query(needle, "exact")
        words = [_query_word(rng, self.vocabulary) for _ in range(rng.randint(1, 4))]
        return parse_query(rng.choice([" ", "  ", " the "]).join(words), "fuzzy")


def _check(index: TenantIndex, corpus: Corpus, query: Query) -> None:
    for kind in KINDS:
        if query.terms and not query.containment:
            # The analysis store scores every record: exactly the ranker's answer.
            records, scores, total = index.ranked(query, kind, limit=10_000)
            expected = corpus.ranked_scores(query, kind)
            assert [(r.id, score) for r, score in zip(records, scores, strict=True)] == expected
            assert total == len(expected)
        found = index.candidates(query, kind, limit=10_000)
        assert not found.truncated
        expected = corpus.token_rule(query, kind)
        if not query.terms and not query.containment:
            # A query with no terms left (blank, or stop words only) lists every record.
            expected = {r.id for r in corpus.records if r.document.kind == kind}
        missing = expected - {r.id for r in found}
        assert not missing, f"{kind} {query!r}: missing {sorted(missing)}"
        assert corpus.ranked(query, kind) <= expected


def _build(root: Path, corpus: Corpus) -> TenantIndex:
    index = TenantIndex.create(root)
    index.upsert(corpus.records)
    index.commit()
    return index


def _random_corpus_run(seed: int) -> None:
    rng = random.Random(seed)
    corpus = Corpus([_record(rng, rng.choice(KINDS), i) for i in range(rng.randint(1, 14))])
    with tempfile.TemporaryDirectory() as tmp:
        index = _build(Path(tmp) / "index", corpus)
        try:
            for _ in range(12):
                _check(index, corpus, corpus.query(rng))
        finally:
            index.close()


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(min_value=0, max_value=2**32 - 1))
def test_candidates_are_a_superset_of_the_oracle(seed: int) -> None:
    _random_corpus_run(seed)


# The same property over five times the corpora: the suite's slowest test (each example
# builds a Tantivy index on disk and runs 12 searches), so scripts/test runs it only with
# OPINDEX_TEST_ALL=1; the 30-example profile above always runs.
@pytest.mark.slow
@pytest.mark.exhaustive
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(min_value=0, max_value=2**32 - 1))
def test_candidates_are_a_superset_of_the_oracle_long_run(seed: int) -> None:
    _random_corpus_run(seed)


def test_superset_on_a_larger_corpus_with_many_queries(tmp_path: Path) -> None:
    rng = random.Random(20240501)
    corpus = Corpus([_record(rng, KINDS[i % 3], i) for i in range(300)])
    index = _build(tmp_path / "index", corpus)
    for _ in range(150):
        _check(index, corpus, corpus.query(rng))


def test_superset_survives_updates_and_deletes(tmp_path: Path) -> None:
    rng = random.Random(99)
    records = {i: _record(rng, "work_package", i) for i in range(60)}
    index = _build(tmp_path / "index", Corpus(list(records.values())))
    for i in range(0, 60, 3):
        records[i] = _record(rng, "work_package", i)
    index.upsert(records[i] for i in range(0, 60, 3))
    index.delete("work_package", range(1, 60, 5))
    for i in range(1, 60, 5):
        del records[i]
    index.commit()
    corpus = Corpus(list(records.values()))
    for _ in range(150):
        query = corpus.query(rng)
        found = {r.id for r in index.candidates(query, "work_package", limit=10_000)}
        assert found <= set(records)
        assert corpus.token_rule(query, "work_package") <= found or query.terms, query
        if query.terms and not query.containment:
            hits, scores, _ = index.ranked(query, "work_package", limit=10_000)
            got = [(r.id, score) for r, score in zip(hits, scores, strict=True)]
            assert got == corpus.ranked_scores(query, "work_package"), query
