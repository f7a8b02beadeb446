"""Zero-hit relaxation wiring: the tenant's thesaurus merged with the built-in one, and meta."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType

from opindex.search import (
    BUILTIN_THESAURUS,
    Query,
    RelaxationOutcome,
    Strategy,
    render_query,
    token_texts,
)

Thesaurus = Mapping[str, tuple[str, ...]]


def merge_thesauri(
    custom: Mapping[str, Sequence[str]], builtin: Mapping[str, Sequence[str]] = BUILTIN_THESAURUS
) -> Thesaurus:
    """The tenant's thesaurus on top of the built-in one.

    Keys are normalized like query tokens (``"Müller"`` → ``"muller"``) so a lookup by a
    query token finds them; for a word in both, the tenant's synonyms come first and the
    built-in ones follow, without duplicates. A key of several words is kept as written
    (it can never equal a single query token, but relaxation may still match it).
    """
    merged: dict[str, list[str]] = {}
    for source in (custom, builtin):
        for word, synonyms in source.items():
            tokens = token_texts(word)
            key = tokens[0] if len(tokens) == 1 else word
            entry = merged.setdefault(key, [])
            entry.extend(s for s in synonyms if s not in entry and token_texts(s) != [key])
    return MappingProxyType({word: tuple(synonyms) for word, synonyms in merged.items()})


@dataclass(frozen=True, slots=True)
class RelaxationMeta:
    """The envelope's view of what relaxation did."""

    wildcard_fallback: bool
    fallback_strategy: Strategy | None
    effective_query: str


def relaxation_meta(outcome: RelaxationOutcome) -> RelaxationMeta:
    """Meta fields for a relaxation outcome (``wildcard_fallback`` true only if it fired)."""
    return RelaxationMeta(
        wildcard_fallback=outcome.fallback_used,
        fallback_strategy=outcome.strategy_used,
        effective_query=outcome.effective_query,
    )


def unrelaxed_meta(query: Query) -> RelaxationMeta:
    """Meta for a search that did not go through relaxation (the query as matched)."""
    return RelaxationMeta(False, None, render_query(query))
