"""Cross-field known-item queries: a record's title words plus one rare word from a deeper field.

A user remembers what a ticket was called and one unusual word from a comment or an agenda
note ("renew TLS certificate portal Vertragsstrafe"). The title words are shared by
records named alike ("Renew TLS certificate for …"); the rare word is what tells the
record apart. Each query takes the title's content words (at most ``MAX_TITLE_WORDS``)
and the rarest word of one deep value that the title lacks and at most ``MAX_RARE_FREQUENCY``
records of the kind hold. ``split`` picks a disjoint half of the eligible records (by a
seeded shuffle): ``build`` to tune on, ``held_out`` to check that the tuning carries over.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from evallib.corpus_view import TITLE_FIELD, CorpusItem
from evallib.query_words import CorpusStats
from opindex.search.document import Kind
from opindex.search.query import STOP_WORDS
from opindex.search.tokenizer import token_texts

Split = Literal["build", "held_out"]
MAX_TITLE_WORDS = 4
MAX_RARE_FREQUENCY = 2
MIN_RARE_LENGTH = 5
DEEP: dict[Kind, tuple[str, ...]] = {
    "work_package": ("comments", "description"),
    "meeting": ("agenda_notes", "outcome_notes"),
    "wiki_page": ("text",),
}


@dataclass(frozen=True, slots=True)
class CrossFieldQuery:
    """One query, the record it must find, and the deep field its rare word came from."""

    kind: Kind
    query: str
    expected_id: int
    field: str
    rare: str


def _title_words(item: CorpusItem) -> list[str]:
    words: list[str] = []
    for value in item.fields.get(TITLE_FIELD[item.kind], ()):
        for token in token_texts(value):
            if token not in STOP_WORDS and not token.isdigit() and token not in words:
                words.append(token)
    return words[:MAX_TITLE_WORDS]


def _query(item: CorpusItem, stats: CorpusStats, rng: random.Random) -> CrossFieldQuery | None:
    title = _title_words(item)
    if len(title) < 2:
        return None
    in_title = {t for v in item.fields.get(TITLE_FIELD[item.kind], ()) for t in token_texts(v)}
    candidates: list[tuple[int, str, str]] = []
    for field in DEEP.get(item.kind, ()):
        for value in item.fields.get(field, ()):
            for token in token_texts(value):
                if token in in_title or token in STOP_WORDS or len(token) < MIN_RARE_LENGTH:
                    continue
                if not token.isalpha():
                    continue
                frequency = stats.frequency(item.kind, token)
                if frequency <= MAX_RARE_FREQUENCY:
                    candidates.append((frequency, token, field))
    if not candidates:
        return None
    frequency, rare, field = rng.choice(sorted(set(candidates)))
    return CrossFieldQuery(item.kind, " ".join([*title, rare]), item.id, field, rare)


def cross_field_queries(
    items: Sequence[CorpusItem], split: Split, *, seed: int = 0, limit: int | None = None
) -> list[CrossFieldQuery]:
    """The cross-field queries of one *split* of *items* (see the module docstring)."""
    stats = CorpusStats(items)
    rng = random.Random(seed)
    eligible = [q for item in items if (q := _query(item, stats, rng)) is not None]
    order = list(range(len(eligible)))
    random.Random(seed + 1).shuffle(order)
    half = set(order[: len(order) // 2])
    chosen = [q for i, q in enumerate(eligible) if (i in half) == (split == "build")]
    return chosen[:limit] if limit is not None else chosen
