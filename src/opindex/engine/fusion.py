"""Fusing the ranking by words with the ranking by meaning: confident word matches keep their place.

Pure arithmetic over two ranked lists; no index, no model. A lexical hit is *confident*
when the caller says its words matched well (e.g. the record matched every query word:
the answer needed no relaxation). In ``auto`` mode:

1. confident lexical hits come first, in their lexical order (today's ranking is kept);
2. the rest are ranked by reciprocal-rank fusion: ``1 / (k + semantic rank)`` for a
   meaning hit plus ``weak_word_weight / (k + lexical rank)`` for a weak word hit, so a
   query whose words match weakly or not at all is answered by meaning (with a positive
   weight a record found both ways rises above one found by either alone; the default
   weight is 0: weak word hits follow the meaning hits).

``lexical`` mode returns the word ranking alone, ``semantic`` the meaning ranking alone.
Every hit says how it was found: ``words``, ``meaning`` or ``both``.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Generic, Literal, TypeVar

FoundBy = Literal["words", "meaning", "both"]
FusionMode = Literal["auto", "lexical", "semantic"]
FUSION_MODES: tuple[FusionMode, ...] = ("auto", "lexical", "semantic")
RRF_K = 60
WEAK_WORD_WEIGHT = 0.0
"""Measured (docs/DECISIONS.md D208): any weight for weak word hits lowered the MRR of
paraphrase queries and left known-item queries as they were, so by default weak word
hits follow the meaning hits, in word order, and only label the meaning hits they share."""
K = TypeVar("K", bound=Hashable)


@dataclass(frozen=True, slots=True)
class LexicalHit(Generic[K]):
    """A record the words found, in lexical rank order; ``confident`` as defined above."""

    key: K
    score: float
    confident: bool


@dataclass(frozen=True, slots=True)
class SemanticHit(Generic[K]):
    """A record the meaning found (``score``: its best chunk's cosine), in rank order."""

    key: K
    score: float


@dataclass(frozen=True, slots=True)
class FusedHit(Generic[K]):
    """A fused result: how it was found, its fusion score, and its 1-based rank in each
    input list (None where that list did not hold it)."""

    key: K
    found_by: FoundBy
    score: float
    lexical_rank: int | None
    semantic_rank: int | None


def fuse(
    lexical: Sequence[LexicalHit[K]],
    semantic: Sequence[SemanticHit[K]],
    *,
    limit: int,
    mode: FusionMode = "auto",
    rrf_k: int = RRF_K,
    weak_word_weight: float = WEAK_WORD_WEIGHT,
) -> list[FusedHit[K]]:
    """The fused ranking of at most *limit* records (see the module docstring).

    ValueError for an unknown *mode*, a negative *limit* or *weak_word_weight*, an
    *rrf_k* below 1, or a key twice in one list.
    """
    if mode not in FUSION_MODES:
        raise ValueError(f"mode must be one of {', '.join(FUSION_MODES)}, got {mode!r}")
    if limit < 0 or rrf_k < 1 or weak_word_weight < 0:
        raise ValueError("limit and weak_word_weight must be >= 0 and rrf_k >= 1")
    lexical_rank = _ranks([hit.key for hit in lexical], "lexical")
    semantic_rank = _ranks([hit.key for hit in semantic], "semantic")
    if mode == "lexical":
        return [
            FusedHit(hit.key, "words", 1.0 / (rrf_k + rank), rank, None)
            for rank, hit in enumerate(lexical[:limit], start=1)
        ]
    if mode == "semantic":
        return [
            FusedHit(hit.key, "meaning", 1.0 / (rrf_k + rank), None, rank)
            for rank, hit in enumerate(semantic[:limit], start=1)
        ]
    fused: list[FusedHit[K]] = []
    for hit in lexical:
        if hit.confident:
            rank = lexical_rank[hit.key]
            meaning = semantic_rank.get(hit.key)
            found: FoundBy = "both" if meaning is not None else "words"
            score = 1.0 / (rrf_k + rank) + (1.0 / (rrf_k + meaning) if meaning else 0.0)
            fused.append(FusedHit(hit.key, found, score, rank, meaning))
    placed = {hit.key for hit in fused}
    rest: dict[K, FusedHit[K]] = {}
    for word_hit in lexical:
        if word_hit.key not in placed:
            rank = lexical_rank[word_hit.key]
            weak = weak_word_weight / (rrf_k + rank)
            rest[word_hit.key] = FusedHit(word_hit.key, "words", weak, rank, None)
    for meaning_hit in semantic:
        if meaning_hit.key in placed:
            continue
        rank = semantic_rank[meaning_hit.key]
        words = rest.get(meaning_hit.key)
        base = words.score if words is not None else 0.0
        rest[meaning_hit.key] = FusedHit(
            meaning_hit.key,
            "both" if words is not None else "meaning",
            base + 1.0 / (rrf_k + rank),
            words.lexical_rank if words is not None else None,
            rank,
        )
    ordered = sorted(
        rest.values(),
        key=lambda h: (
            -h.score,
            h.semantic_rank if h.semantic_rank is not None else len(semantic) + 1,
            h.lexical_rank if h.lexical_rank is not None else len(lexical) + 1,
        ),
    )
    return (fused + ordered)[:limit]


def _ranks(keys: Sequence[K], name: str) -> dict[K, int]:
    ranks: dict[K, int] = {}
    for rank, key in enumerate(keys, start=1):
        if key in ranks:
            raise ValueError(f"{key!r} appears twice in the {name} hits")
        ranks[key] = rank
    return ranks
