"""Field scoring: a query matched against field values, each distinct token scored once."""

from __future__ import annotations

from dataclasses import dataclass

from opindex.search.analysis import AnalyzedText
from opindex.search.query import Query, alternative_score, parse_query
from opindex.search.tokenize import token_texts

BASE_SCALE = 0.85
"""Non-verbatim field scores are scaled by this, leaving headroom for the phrase bonus."""
PHRASE_BONUS = 0.15
"""Added when the query's tokens appear verbatim (consecutively) in the value."""


def round_score(score: float) -> float:
    """Scores are reported, gated and ordered at two decimals."""
    return round(min(1.0, max(0.0, score)), 2)


@dataclass(frozen=True, slots=True)
class FieldScore:
    """Score of one field value (0..1) and the start offsets of its matched tokens."""

    score: float
    matched_offsets: tuple[int, ...]


class ContainmentMatcher:
    """Legacy matching: case-insensitive substring of the raw text, score 1 or 0."""

    def __init__(self, query: Query) -> None:
        text = query.text if query.match_mode == "exact" else query.text.strip()
        self._needle = text.lower()

    def score(self, text: str) -> float:
        """1.0 if the query occurs in *text* ignoring case, else 0.0."""
        return 1.0 if self._needle in text.lower() else 0.0

    def offsets(self, text: str) -> tuple[int, ...]:
        """Where the query occurs in *text* (first occurrence), for the snippet."""
        position = text.lower().find(self._needle)
        return (min(position, len(text)),) if position >= 0 else ()


class QueryMatcher:
    """Scores field values against one fuzzy query.

    It keeps, for the lifetime of one ranking call, the score vector (one entry per query
    alternative) of every distinct field token it has met, so each distinct token is
    scored once per query however many values contain it. Per value the work is two set
    operations in C (``distinct - seen`` and ``distinct & positive``) plus a Python loop
    over the few tokens that matched something.
    """

    def __init__(self, query: Query) -> None:
        self._alternatives = [alt for term in query.terms for alt in term.alternatives]
        slots: list[tuple[int, ...]] = []
        position = 0
        for term in query.terms:
            slots.append(tuple(range(position, position + len(term.alternatives))))
            position += len(term.alternatives)
        self._slots = slots
        self._phrase = tuple(token_texts(query.text))
        self._seen: set[str] = set()
        self._positive: set[str] = set()
        self._scores: dict[str, tuple[float, ...]] = {}

    def _learn(self, tokens: frozenset[str]) -> None:
        alternatives = self._alternatives
        for token in tokens:
            vector = tuple(alternative_score(alt, token) for alt in alternatives)
            if any(vector):
                self._scores[token] = vector
                self._positive.add(token)
        self._seen.update(tokens)

    def term_scores(self, value: AnalyzedText) -> list[float]:
        """Best score of each query term against any token of *value*."""
        distinct = value.distinct
        new = distinct - self._seen
        if new:
            self._learn(new)
        hits = distinct & self._positive
        if not hits:
            return [0.0] * len(self._slots)
        best = [0.0] * len(self._alternatives)
        for token in hits:
            for index, score in enumerate(self._scores[token]):
                if score > best[index]:
                    best[index] = score
        return [max(best[i] for i in slot) for slot in self._slots]

    def score(self, value: AnalyzedText) -> float:
        """``mean(best per term) * coverage``, scaled for headroom, plus the phrase bonus."""
        bests = self.term_scores(value)
        covered = sum(1 for best in bests if best > 0.0)
        if not covered:
            return 0.0
        count = len(bests)
        base = (sum(bests) / count) * (covered / count) * BASE_SCALE
        if value.contains_sequence(self._phrase):
            return min(1.0, base + PHRASE_BONUS)
        return base

    def offsets(self, value: AnalyzedText) -> tuple[int, ...]:
        """Start offsets of the tokens that gave each term its best score in *value*."""
        bests = self.term_scores(value)
        found: list[int] = []
        for span in value.spans():
            vector = self._scores.get(span.text)
            if vector is None:
                continue
            for slot, best in zip(self._slots, bests, strict=True):
                if best > 0.0 and max(vector[i] for i in slot) == best:
                    found.append(span.start)
                    break
        return tuple(found)


def score_field(query: str | Query, field_text: str | AnalyzedText) -> FieldScore:
    """Score one field value against *query* (parsed as fuzzy if given as text)."""
    parsed = parse_query(query) if isinstance(query, str) else query
    if parsed.containment:
        raw = field_text.text if isinstance(field_text, AnalyzedText) else field_text
        containment = ContainmentMatcher(parsed)
        score = containment.score(raw)
        return FieldScore(score, containment.offsets(raw) if score else ())
    if not parsed.terms:
        return FieldScore(0.0, ())
    value = field_text if isinstance(field_text, AnalyzedText) else AnalyzedText(field_text)
    matcher = QueryMatcher(parsed)
    score = round_score(matcher.score(value))
    return FieldScore(score, matcher.offsets(value) if score else ())
