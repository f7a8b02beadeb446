"""Zero-hit relaxation: pure query rewrites and the plan that orders them (no searching)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Literal

from opindex.search.query import Alternative, Query, Term, render_query
from opindex.search.thesaurus import BUILTIN_THESAURUS
from opindex.search.tokenizer import token_texts

Strategy = Literal["wildcard_suffix", "drop_term", "concept_expansion"]
STRATEGIES: tuple[Strategy, ...] = ("wildcard_suffix", "drop_term", "concept_expansion")

MAX_SYNONYMS = 3
"""Synonyms added per term by concept expansion."""
MAX_EXPANDED_TOKENS = 32
"""Cap on the alternatives of a whole expanded query."""

DocFreq = Callable[[Alternative], int]
"""How many records hold a token the alternative matches by the scorer's rules (typos,
prefixes, containment included), so a misspelt word is not taken for an absent one."""
Thesaurus = Mapping[str, Sequence[str]]


def wildcard_suffix(query: Query) -> Query | None:
    """Every alternative becomes a prefix (``async pool`` -> ``async* pool*``).

    Returns None when nothing changes (no terms, or all already prefixes).
    """
    terms = tuple(
        Term(tuple(dict.fromkeys(Alternative(a.token, True) for a in term.alternatives)))
        for term in query.terms
    )
    if not terms or terms == query.terms:
        return None
    return replace(query, terms=terms, containment=False)


def _term_frequency(term: Term, doc_freq: DocFreq) -> int:
    return max(doc_freq(alternative) for alternative in term.alternatives)


def drop_term(query: Query, doc_freq: DocFreq | None) -> Query | None:
    """The query without its least useful term; None when only one term is left.

    A term's document frequency (matches by the scorer's rules, typos included) is that
    of its most frequent alternative. A term that matches nothing goes first; otherwise
    the most common term, which tells the records apart least; ties drop the leftmost.
    A misspelt but distinctive word is kept. Without frequencies (*doc_freq* None) the
    first term is dropped.
    """
    terms = query.terms
    if len(terms) <= 1:
        return None
    if doc_freq is None:
        index = 0
    else:
        frequencies = [_term_frequency(term, doc_freq) for term in terms]
        if 0 in frequencies:
            index = frequencies.index(0)
        else:
            index = max(range(len(terms)), key=lambda i: (frequencies[i], -i))
    return replace(query, terms=terms[:index] + terms[index + 1 :], containment=False)


def _synonyms(token: str, thesaurus: Thesaurus) -> list[str]:
    """Single-token, normalized synonyms of *token* (keys are matched normalized too)."""
    entries = thesaurus.get(token)
    if entries is None:
        entries = next(
            (value for key, value in thesaurus.items() if token_texts(key) == [token]), ()
        )
    found: list[str] = []
    for entry in entries:
        tokens = token_texts(entry)
        if len(tokens) == 1 and tokens[0] != token and tokens[0] not in found:
            found.append(tokens[0])
    return found


def concept_expansion(query: Query, thesaurus: Thesaurus) -> Query | None:
    """Each term gains up to 3 synonyms as alternatives; the query stays <= 32 tokens.

    Returns None when the thesaurus knows none of the terms.
    """
    room = MAX_EXPANDED_TOKENS - sum(len(term.alternatives) for term in query.terms)
    expanded: list[Term] = []
    for term in query.terms:
        alternatives = list(term.alternatives)
        added = 0
        for alternative in term.alternatives:
            for synonym in _synonyms(alternative.token, thesaurus):
                candidate = Alternative(synonym)
                if added >= MAX_SYNONYMS or room <= 0:
                    break
                if candidate not in alternatives:
                    alternatives.append(candidate)
                    added += 1
                    room -= 1
        expanded.append(Term(tuple(alternatives)))
    terms = tuple(expanded)
    if terms == query.terms:
        return None
    return replace(query, terms=terms, containment=False)


@dataclass(frozen=True, slots=True)
class RelaxationOutcome:
    """What relaxation did: which strategy (None if the primary query was used), the
    caller's query, the query that produced the results, and how many results it added."""

    strategy_used: Strategy | None
    original_query: str
    effective_query: str
    results_added: int

    @property
    def fallback_used(self) -> bool:
        """True when a relaxed query produced the results (``meta.wildcard_fallback``)."""
        return self.strategy_used is not None


def relaxation_plan(
    query: Query, *, doc_freq: DocFreq | None = None, thesaurus: Thesaurus | None = None
) -> Iterator[tuple[Strategy, Query]]:
    """The relaxed queries to try after a zero-hit primary query, in order.

    wildcard_suffix, then drop_term repeatedly (rarest term first, down to one term),
    then concept_expansion of the original query. A query already tried is skipped.
    Containment queries (exact mode, very short queries) are never relaxed.
    """
    if query.containment or not query.terms:
        return
    tried = {render_query(query)}

    def fresh(candidate: Query) -> bool:
        rendered = render_query(candidate)
        if rendered in tried:
            return False
        tried.add(rendered)
        return True

    widened = wildcard_suffix(query)
    if widened is not None and fresh(widened):
        yield "wildcard_suffix", widened
    narrowed = drop_term(query, doc_freq)
    while narrowed is not None:
        if fresh(narrowed):
            yield "drop_term", narrowed
        narrowed = drop_term(narrowed, doc_freq)
    expanded = concept_expansion(query, BUILTIN_THESAURUS if thesaurus is None else thesaurus)
    if expanded is not None and fresh(expanded):
        yield "concept_expansion", expanded
