"""Fuzzy-mode candidate query: every record the scorer could accept, ranked like it.

Per query term and per field of the kind, a record matches when one of the field's tokens
t could score above zero against an alternative q of the term (score_token rules):

==========================  ==================================================  =======
scorer rule                 Tantivy clause on the field                         bound
==========================  ==================================================  =======
t == q                      term query                                          1.0
len(q) >= 3, t starts q     prefix query on q                                   0.9
``q*`` and t starts q       prefix query on q                                   1.0
len(q) >= 4, q in t         term-set query of the vocabulary terms holding q    0.75
edit distance d <= budget   fuzzy query, distance d (OSA: a superset)           1-0.6d/len
shared prefix >= 4          prefix query on q[:4]                               0.8
==========================  ==================================================  =======

Terms are OR-ed: the scorer may accept a record matching only some terms. The score of
a candidate estimates the scorer's from above, per field f of weight w:

    TERM_WEIGHT * m_f + RULE_WEIGHT * w * sum over matched terms of the best rule bound

maximised over the fields (m_f = terms matched in f). The scorer's raw score of a field
is at most 0.85 * (m_f / n)^2 when m_f < n of n terms match, so ordering by m_f first
cuts, under a cap, the records with the lowest upper bound first.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Final

import tantivy

from opindex.index import schema as s
from opindex.index.vocabulary import Vocabulary
from opindex.search.document import Kind
from opindex.search.query import Alternative, Query
from opindex.search.score import (
    CONTAINS_SCORE,
    EDIT_PENALTY,
    EXACT_SCORE,
    PREFIX_SCORE,
    SHARED_PREFIX_BASE,
    SHARED_PREFIX_MIN,
    SHARED_PREFIX_SPAN,
    bounded_levenshtein,
    edit_budget,
)

# The two levels of a candidate score; RULE_WEIGHT * 3.0 (max field weight) * 32 (max
# terms) stays below TERM_WEIGHT, so the levels never mix.
TERM_WEIGHT: Final = 100_000.0
RULE_WEIGHT: Final = 100.0
# A substring piece matching more vocabulary terms than this is treated as unselective:
# it no longer restricts the candidates (still a superset), and the cost stays bounded.
MAX_PIECE_TERMS: Final = 20_000
# Tokens longer than this find their typo matches through the vocabulary, not an automaton.
FUZZY_AUTOMATON_MAX_CHARS: Final = 32

VocabularySource = Callable[[], Vocabulary]


def prefix_query(schema: tantivy.Schema, field: str, prefix: str) -> tantivy.Query:
    """Documents with a term of *field* starting with *prefix*."""
    if not prefix:
        return tantivy.Query.all_query()
    return tantivy.Query.fuzzy_term_query(schema, field, prefix, distance=0, prefix=True)


def term_set_query(schema: tantivy.Schema, field: str, terms: list[str] | None) -> tantivy.Query:
    """Documents with one of *terms* in *field*; None means "too many to list": all."""
    if terms is None:
        return tantivy.Query.all_query()
    if not terms:
        return tantivy.Query.empty_query()
    return tantivy.Query.term_set_query(schema, field, terms)


def near_terms(token: str, vocabulary: VocabularySource) -> dict[int, list[str] | None]:
    """Per edit distance within the token's budget: the vocabulary terms at it, or None.

    None asks for Tantivy's fuzzy automaton, whose construction grows with the token's
    length (seconds at 3,000 characters). For long tokens the vocabulary answers instead:
    a term within d edits holds one of d + 1 chunks of the token verbatim (pigeonhole),
    so the terms containing a chunk, filtered by the exact distance, are all of them.
    """
    budget = edit_budget(token)
    if budget == 0:
        return {}
    if len(token) <= FUZZY_AUTOMATON_MAX_CHARS:
        return dict.fromkeys(range(1, budget + 1))
    size = len(token) // (budget + 1)
    chunks = [token[i * size : (i + 1) * size] for i in range(budget)] + [token[budget * size :]]
    near: dict[int, list[str] | None] = {d: [] for d in range(1, budget + 1)}
    for chunk in chunks:
        found = vocabulary().find(chunk, "anywhere", limit=MAX_PIECE_TERMS)
        if found is None:
            return dict.fromkeys(range(1, budget + 1))
        for term in found:
            distance = bounded_levenshtein(token, term, budget)
            bucket = near.get(distance)
            if bucket is not None and term not in bucket:
                bucket.append(term)
    return near


def rule_clauses(
    schema: tantivy.Schema,
    field: str,
    alternative: Alternative,
    containing: list[str] | None,
    near: dict[int, list[str] | None],
) -> list[tuple[tantivy.Query, float]]:
    """(clause, upper bound of the token score) per scorer rule that can fire.

    The union of the clauses matches every document of which a token of *field* scores
    above zero for *alternative*; *containing* lists the vocabulary terms holding the
    token (None: too many to list), *near* comes from near_terms().
    """
    token = alternative.token
    if len(token) > s.MAX_TOKEN_CHARS:  # indexed tokens are cut to this length too
        return [(prefix_query(schema, field, token[: s.MAX_TOKEN_CHARS]), EXACT_SCORE)]
    length = len(token)
    rules = [(tantivy.Query.term_query(schema, field, token), EXACT_SCORE)]
    if alternative.prefix:
        rules.append((prefix_query(schema, field, token), EXACT_SCORE))
    elif length >= 3:
        rules.append((prefix_query(schema, field, token), PREFIX_SCORE))
    if length >= 4 and (containing is None or containing):
        rules.append((term_set_query(schema, field, containing), CONTAINS_SCORE))
    for distance, terms in near.items():
        if terms is None:  # an automaton over the field's term dictionary
            fuzzy = tantivy.Query.fuzzy_term_query(schema, field, token, distance=distance)
        else:
            fuzzy = term_set_query(schema, field, terms)
        rules.append((fuzzy, 1.0 - distance / length * EDIT_PENALTY))
    if length >= SHARED_PREFIX_MIN:
        shared = prefix_query(schema, field, token[:SHARED_PREFIX_MIN])
        rules.append((shared, SHARED_PREFIX_BASE + SHARED_PREFIX_SPAN))
    return rules


def containing_terms(vocabulary: VocabularySource, alternative: Alternative) -> list[str] | None:
    """Vocabulary terms containing the alternative's token (the len >= 4 rule)."""
    token = alternative.token
    if len(token) < 4 or len(token) > s.MAX_TOKEN_CHARS:
        return []
    return vocabulary().find(token, "anywhere", limit=MAX_PIECE_TERMS)


def _dis_max(clauses: Sequence[tantivy.Query]) -> tantivy.Query:
    return clauses[0] if len(clauses) == 1 else tantivy.Query.disjunction_max_query(clauses)


def fuzzy_query(
    schema: tantivy.Schema, vocabulary: VocabularySource, query: Query, kind: Kind
) -> tantivy.Query | None:
    """The candidate query of a fuzzy *query* over records of *kind*; None without terms."""
    if not query.terms:
        return None
    alternatives = [alternative for term in query.terms for alternative in term.alternatives]
    containing = {a: containing_terms(vocabulary, a) for a in alternatives}
    near = {a: near_terms(a.token, vocabulary) for a in alternatives}
    per_field: list[tantivy.Query] = []
    for field, weight in s.FIELD_WEIGHTS[kind].items():
        name = s.text_field_name(field)
        per_term: list[tuple[tantivy.Occur, tantivy.Query]] = []
        for term in query.terms:
            scored = [
                tantivy.Query.const_score_query(clause, TERM_WEIGHT + RULE_WEIGHT * weight * bound)
                for alternative in term.alternatives
                for clause, bound in rule_clauses(
                    schema, name, alternative, containing[alternative], near[alternative]
                )
            ]
            if scored:
                per_term.append((tantivy.Occur.Should, _dis_max(scored)))
        if per_term:
            per_field.append(tantivy.Query.boolean_query(per_term))
    return _dis_max(per_field) if per_field else None


def field_terms_matched(score: float) -> int:
    """The most query terms one field of a candidate matched, from its score."""
    return int(score // TERM_WEIGHT)
