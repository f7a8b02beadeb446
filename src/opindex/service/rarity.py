"""Rarity where the scorer's scores tie: the record holding the word that tells it apart first.

The spec's scorer has no notion of rarity: "clean up stale feature lantern" scores every
"Clean up stale feature flags in …" work package 0.54 on its subject, and the one whose
description holds "lantern" ties with them (its cross-field score is lower, weighted like
the description). Within a group of hits with the same (rounded) score this module orders
the hits by the rarity of the query words each holds: a word held by ``df`` of the ``n``
tied hits weighs ``log(1 + n / df)``, so a word only one of them holds outweighs words all
of them hold. The weights come from the tied hits alone, so both search paths, ranking the
same records, order them the same way (DECISIONS D201). Scores and everything else stay as
the scorer gave them; groups keep their order among themselves.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Sequence
from itertools import groupby
from typing import TypeVar

from opindex.search import SearchDocument
from opindex.service.word_accounting import QueryWord, record_words

T = TypeVar("T")

LITERAL = frozenset({"exact", "prefix"})
"""Matches that count for rarity: the word itself (or a longer word starting with it); a
typo, stem or related-term match says less about which record was meant."""
TIE_WINDOW = 200
"""Most hits ranked to take in a tie that straddles the end of a page."""


def tie_straddles(scores: Sequence[float], shown: int, total: int) -> bool:
    """Whether the hits after the first *shown* may hold more hits tied with the last shown
    one (the ranking was cut inside a tie): *scores* are the ranked hits' scores."""
    if shown <= 0 or len(scores) < shown or total <= len(scores):
        return False
    return scores[-1] == scores[shown - 1]


def rarity_order(
    hits: Sequence[T],
    words: Sequence[QueryWord],
    score: Callable[[T], float],
    document: Callable[[T], SearchDocument],
) -> list[T]:
    """*hits* (best first) with every group of equal *score* ordered by rarity (see the
    module docstring); a stable sort, so equal rarity keeps the scorer's order."""
    if len(words) < 2:
        return list(hits)
    ordered: list[T] = []
    for _, grouped in groupby(hits, key=score):
        group = list(grouped)
        if len(group) < 2:
            ordered.extend(group)
            continue
        held = [
            {m.word for m in record_words(words, document(hit)) if m.how in LITERAL}
            for hit in group
        ]
        counts = Counter(word for words_held in held for word in words_held)
        size = len(group)
        weight = {word: math.log1p(size / count) for word, count in counts.items()}
        rarity = [sum(weight[word] for word in words_held) for words_held in held]
        ranks = sorted(range(size), key=lambda i: -round(rarity[i], 9))
        ordered.extend(group[i] for i in ranks)
    return ordered
