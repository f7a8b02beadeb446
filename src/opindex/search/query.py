"""The parsed query model: terms with alternatives, stop words, and its rendering."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal, get_args

from opindex.errors import InvalidArgumentError
from opindex.search.score import score_prefix_token, score_token
from opindex.search.tokenizer import tokenize

MatchMode = Literal["fuzzy", "exact"]
MATCH_MODES: tuple[MatchMode, ...] = get_args(MatchMode)

MAX_TERMS = 32
"""Terms beyond this many are ignored (a 10,000-character query must stay cheap)."""

CONTAINMENT_BELOW = 3
"""Fuzzy queries shorter than this many characters use substring containment."""

# fmt: off
STOP_WORDS: frozenset[str] = frozenset({
    "a", "about", "above", "after", "again", "all", "also", "am", "an", "and", "any", "are",
    "as", "at", "be", "been", "before", "being", "but", "by", "can", "could", "did", "do",
    "does", "doing", "for", "from", "had", "has", "have", "having", "he", "her", "here", "how",
    "i", "if", "in", "into", "is", "it", "its", "me", "my", "of", "on", "or", "our", "ours",
    "please", "she", "should", "show", "so", "some", "tell", "than", "that", "the", "their",
    "them", "then", "there", "these", "they", "this", "those", "to", "us", "was", "we", "were",
    "what", "when", "where", "which", "while", "who", "whom", "why", "with", "would", "you",
    "your",
})
# fmt: on
"""Small English function-word list removed from fuzzy queries (kept if nothing else is
left), so natural-language questions are not sunk by coverage."""


@dataclass(frozen=True, slots=True)
class Alternative:
    """One normalized token a term may match; ``prefix`` for a wildcard ``tok*``."""

    token: str
    prefix: bool = False


@dataclass(frozen=True, slots=True)
class Term:
    """One query word; it matches if any of its alternatives matches."""

    alternatives: tuple[Alternative, ...]


@dataclass(frozen=True, slots=True)
class Query:
    """A parsed query: what the caller wrote, its terms, and how to match it."""

    text: str
    terms: tuple[Term, ...]
    match_mode: MatchMode
    containment: bool


# `(a|b|c)` groups: a term with several alternatives (what render_query writes).
_GROUP_RE = re.compile(r"\(([^()|]*(?:\|[^()|]*)+)\)")


def _chunk_terms(chunk: str) -> list[Term]:
    """One term per token of *chunk*; a token directly followed by ``*`` is a prefix."""
    terms: list[Term] = []
    for token in tokenize(chunk):
        prefix = chunk[token.end : token.end + 1] == "*"
        terms.append(Term((Alternative(token.text, prefix),)))
    return terms


def _group_term(body: str) -> Term | None:
    alternatives: list[Alternative] = []
    for part in body.split("|"):
        for term in _chunk_terms(part):
            for alternative in term.alternatives:
                if alternative not in alternatives:
                    alternatives.append(alternative)
    return Term(tuple(alternatives)) if alternatives else None


def _parse_terms(text: str) -> list[Term]:
    terms: list[Term] = []
    position = 0
    for group in _GROUP_RE.finditer(text):
        terms.extend(_chunk_terms(text[position : group.start()]))
        term = _group_term(group.group(1))
        if term is not None:
            terms.append(term)
        position = group.end()
    terms.extend(_chunk_terms(text[position:]))
    return terms


def _is_stop_word(term: Term) -> bool:
    if len(term.alternatives) != 1:
        return False
    alternative = term.alternatives[0]
    return not alternative.prefix and alternative.token in STOP_WORDS


def _content_terms(terms: list[Term]) -> tuple[Term, ...]:
    """Deduplicate, drop stop words unless nothing else is left, cap at MAX_TERMS."""
    unique = list(dict.fromkeys(terms))
    content = [term for term in unique if not _is_stop_word(term)]
    return tuple((content or unique)[:MAX_TERMS])


def validate_match_mode(match_mode: str) -> MatchMode:
    """Return *match_mode* typed, or raise InvalidArgumentError naming the valid modes."""
    for mode in MATCH_MODES:
        if match_mode == mode:
            return mode
    raise InvalidArgumentError(
        f"unknown match mode {match_mode!r}; expected one of: {', '.join(MATCH_MODES)}"
    )


def parse_query(text: str, match_mode: MatchMode = "fuzzy") -> Query:
    """Parse *text* into a Query.

    Plain words become terms; ``tok*`` is a prefix alternative; ``(a|b)`` is one term with
    alternatives. Exact mode, and fuzzy queries under 3 characters (or with no letters or
    digits at all), use case-insensitive substring containment over the raw field text.
    """
    if not isinstance(text, str):
        raise InvalidArgumentError(f"query must be a string, not {type(text).__name__}")
    mode = validate_match_mode(match_mode)
    terms = _content_terms(_parse_terms(text))
    stripped = text.strip()
    containment = mode == "exact" or (
        bool(stripped) and (len(stripped) < CONTAINMENT_BELOW or not terms)
    )
    return Query(text=text, terms=terms, match_mode=mode, containment=containment)


def _render_alternative(alternative: Alternative) -> str:
    return alternative.token + ("*" if alternative.prefix else "")


def render_term(term: Term) -> str:
    """``tok``, ``tok*``, or ``(a|b*|c)`` for a term with several alternatives."""
    if len(term.alternatives) == 1:
        return _render_alternative(term.alternatives[0])
    return "(" + "|".join(_render_alternative(a) for a in term.alternatives) + ")"


def render_query(query: Query) -> str:
    """The query as it is matched, e.g. ``async* pool*`` or ``(bug|defect) report``.

    A containment query is matched literally, so it renders as the caller's text.
    ``parse_query(render_query(q))`` gives back the same terms for a fuzzy query.
    """
    if query.containment:
        return query.text
    return " ".join(render_term(term) for term in query.terms)


def alternative_score(alt: Alternative, field_token: str) -> float:
    """Score of one normalized field token for one alternative (0..1).

    Plain alternatives use the spec's token rules (``score_token``); a prefix alternative
    scores 1.0 on any field token starting with it and the plain rules otherwise.
    """
    if alt.prefix:
        return score_prefix_token(alt.token, field_token)
    return score_token(alt.token, field_token)
