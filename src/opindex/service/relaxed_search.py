"""Zero-hit relaxation run against a path: the plan tried in order, the tenant's thesaurus
merged with the built-in one, and meta.

``opindex.search.relax`` only rewrites queries and orders the rewrites; running them (on
the index or live) happens here, so the pure part never drives a path through callbacks.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import TypeVar

from opindex.search import (
    BUILTIN_THESAURUS,
    Alternative,
    Query,
    RelaxationOutcome,
    Strategy,
    parse_query,
    relaxation_plan,
    render_query,
    token_texts,
)

Thesaurus = Mapping[str, tuple[str, ...]]
R = TypeVar("R")
DocFreq = Callable[[Alternative], int]
PlanThesaurus = Mapping[str, Sequence[str]]


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


def _as_query(query: Query | str) -> Query:
    return parse_query(query) if isinstance(query, str) else query


def _outcome(
    original: Query, effective: Query, strategy: Strategy | None, added: int
) -> RelaxationOutcome:
    return RelaxationOutcome(strategy, original.text, render_query(effective), added)


def search_with_relaxation(
    query: Query | str,
    run: Callable[[Query], Sequence[R]],
    *,
    doc_freq: DocFreq | None = None,
    thesaurus: PlanThesaurus | None = None,
    enabled: bool = True,
) -> tuple[Sequence[R], RelaxationOutcome]:
    """Run *query*; on zero hits try the relaxation plan until one query has a hit.

    The relaxed queries are scored by the same rules (the threshold is never lowered).
    With *enabled* False, or when nothing helps, the primary results are returned.
    """
    primary = _as_query(query)
    results = run(primary)
    if results or not enabled:
        return results, _outcome(primary, primary, None, 0)
    plan = relaxation_plan(primary, doc_freq=doc_freq, thesaurus=thesaurus)
    for strategy, relaxed in plan:
        relaxed_results = run(relaxed)
        if relaxed_results:
            return relaxed_results, _outcome(primary, relaxed, strategy, len(relaxed_results))
    return results, _outcome(primary, primary, None, 0)


async def search_with_relaxation_async(
    query: Query | str,
    run: Callable[[Query], Awaitable[Sequence[R]]],
    *,
    doc_freq: DocFreq | None = None,
    thesaurus: PlanThesaurus | None = None,
    enabled: bool = True,
) -> tuple[Sequence[R], RelaxationOutcome]:
    """The async twin of ``search_with_relaxation`` (same plan, awaited *run*)."""
    primary = _as_query(query)
    results = await run(primary)
    if results or not enabled:
        return results, _outcome(primary, primary, None, 0)
    plan = relaxation_plan(primary, doc_freq=doc_freq, thesaurus=thesaurus)
    for strategy, relaxed in plan:
        relaxed_results = await run(relaxed)
        if relaxed_results:
            return relaxed_results, _outcome(primary, relaxed, strategy, len(relaxed_results))
    return results, _outcome(primary, primary, None, 0)
