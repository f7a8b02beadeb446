"""Known-item queries generated from a corpus (docs/BENCHMARKS: "Corpus and queries").

Each query picks a record, takes 1-4 words from one of its fields and optionally adds a
realistic typo, truncates a word, reorders, or phrases the words as a question. The record
is the expected answer. Seeded and deterministic.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from opindex.records import Record
from opindex.search.document import Kind
from opindex.search.query import STOP_WORDS
from opindex.search.tokenizer import tokenize

CATEGORIES = ("title", "typo", "partial", "multi_word", "deep_only", "natural_language")
_PRIMARY = {"work_package": "subject", "wiki_page": "title", "meeting": "title"}
_NEIGHBOURS = {
    "a": "qs", "b": "vn", "c": "xv", "d": "sf", "e": "wr", "f": "dg", "g": "fh", "h": "gj",
    "i": "uo", "j": "hk", "k": "jl", "l": "k", "m": "n", "n": "bm", "o": "ip", "p": "o",
    "q": "w", "r": "et", "s": "ad", "t": "ry", "u": "yi", "v": "cb", "w": "qe", "x": "zc",
    "y": "tu", "z": "x",
}  # fmt: skip
_QUESTIONS = (
    "what did we decide about {}",
    "where is the {} described",
    "who worked on {}",
    "any news on {}",
)


@dataclass(frozen=True, slots=True)
class KnownItemQuery:
    """A query, how it was made, and the record it was made from."""

    text: str
    category: str
    kind: Kind
    expected_id: int


def _words(text: str) -> list[str]:
    """Distinctive words of *text* as written (letters only, >= 5 chars, no stop words)."""
    found = []
    for token in tokenize(text):
        raw = text[token.start : token.end]
        if len(token.text) >= 5 and raw.isalpha() and token.text not in STOP_WORDS:
            found.append(raw)
    return list(dict.fromkeys(found))


def typo(word: str, rng: random.Random) -> str:
    """One realistic typo: drop, swap, insert or substitute a neighbouring key."""
    if len(word) < 5:
        return word
    position = rng.randrange(1, len(word) - 1)
    operation = rng.choice(("drop", "swap", "insert", "substitute"))
    key = word[position].lower()
    neighbour = rng.choice(_NEIGHBOURS.get(key, "e"))
    if operation == "drop":
        return word[:position] + word[position + 1 :]
    if operation == "swap":
        return word[: position - 1] + word[position] + word[position - 1] + word[position + 1 :]
    if operation == "insert":
        return word[:position] + neighbour + word[position:]
    return word[:position] + neighbour + word[position + 1 :]


def _field_text(record: Record, field: str, rng: random.Random) -> str:
    values = record.document.fields.get(field, ())
    return rng.choice(values).text if values else ""


def _deep_words(record: Record, rng: random.Random) -> list[str]:
    """Words of one deep field value that do not occur in the primary field."""
    kind = record.document.kind
    primary = {t.text for t in tokenize(_field_text(record, _PRIMARY[kind], rng))}
    deep = [name for name in record.document.fields if name != _PRIMARY[kind]]
    rng.shuffle(deep)
    for name in deep:
        words = [w for w in _words(_field_text(record, name, rng)) if w.lower() not in primary]
        if len(words) >= 2:
            return words
    return []


def _make(record: Record, category: str, rng: random.Random) -> str | None:
    kind = record.document.kind
    if category == "deep_only":
        words = _deep_words(record, rng)
        return " ".join(rng.sample(words, min(len(words), rng.randint(2, 3)))) if words else None
    words = _words(_field_text(record, _PRIMARY[kind], rng))
    if not words:
        return None
    if category == "title":
        return " ".join(words[: rng.randint(1, 3)])
    if category == "typo":
        chosen = rng.sample(words, min(len(words), rng.randint(1, 2)))
        chosen[0] = typo(chosen[0], rng)
        return " ".join(chosen)
    if category == "partial":
        word = rng.choice(words)
        return word[: max(4, len(word) - rng.randint(1, 3))]
    if category == "multi_word":
        chosen = rng.sample(words, min(len(words), rng.randint(2, 4)))
        rng.shuffle(chosen)
        return " ".join(chosen)
    chosen = rng.sample(words, min(len(words), 2))
    return rng.choice(_QUESTIONS).format(" ".join(chosen))


def generate_queries(
    records: Sequence[Record], count: int, *, seed: int = 7
) -> list[KnownItemQuery]:
    """*count* known-item queries spread evenly over CATEGORIES."""
    rng = random.Random(seed)
    queries: list[KnownItemQuery] = []
    attempts = 0
    while len(queries) < count and attempts < count * 50:
        attempts += 1
        category = CATEGORIES[len(queries) % len(CATEGORIES)]
        record = rng.choice(records)
        text = _make(record, category, rng)
        if text:
            queries.append(KnownItemQuery(text, category, record.document.kind, record.id))
    return queries
