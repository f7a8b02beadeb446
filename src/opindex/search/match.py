"""Field scoring: a query matched against field values, each distinct token scored once."""

from __future__ import annotations

from collections.abc import Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass

from rapidfuzz import process
from rapidfuzz.distance import Levenshtein

from opindex.search.analysis import AnalyzedText, folded_latin
from opindex.search.query import Query, alternative_score, parse_query
from opindex.search.score import SHARED_PREFIX_MIN, edit_budget
from opindex.search.tokenizer import RUN_PATTERN as _RUN_RE
from opindex.search.tokenizer import token_texts, tokenize

BASE_SCALE = 0.85
"""Non-verbatim field scores are scaled by this, leaving headroom for the phrase bonus."""
PHRASE_BONUS = 0.15
"""Added when the query's tokens appear verbatim (consecutively) in the value."""


SPREAD_SCALE = 0.95
"""Words spread over several fields or values score below the same words in one value."""


def cross_field_scores(
    rows: Sequence[list[float] | None], weights: Sequence[float], max_weight: float
) -> tuple[float, float]:
    """Raw and weighted cross-field score of one record (DECISIONS D89).

    *rows*: per field, the best score of each term over the field's values (None: no
    match). Each term counts with its best score anywhere in the record:
    ``raw = mean(best) * coverage * BASE_SCALE * SPREAD_SCALE``; the weighted score is
    ``raw * lightest / max_weight``, where a term's field is the heaviest one holding its
    best and ``lightest`` is the lightest of those fields: a match spread over a subject
    and a comment ranks like a comment match. The operations run in this order (the
    vectorized scorer repeats them to the last bit).
    """
    present = [(row, weight) for row, weight in zip(rows, weights, strict=True) if row]
    if not present:
        return 0.0, 0.0
    count = len(present[0][0])
    bests = [max(row[j] for row, _ in present) for j in range(count)]
    covered = count - bests.count(0.0)
    if not covered:
        return 0.0, 0.0
    lightest = min(
        max(weight for row, weight in present if row[j] == best)
        for j, best in enumerate(bests)
        if best
    )
    raw = (sum(bests) / count) * (covered / count) * BASE_SCALE * SPREAD_SCALE
    return raw, raw * lightest / max_weight


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

    def best_values(self, column: Sequence[Sequence[str]]) -> tuple[list[float], list[int]]:
        """For each entry of *column*: 1.0 and the index of the first containing value,
        or 0.0 and -1."""
        scores = [0.0] * len(column)
        indexes = [-1] * len(column)
        needle = self._needle
        for position, values in enumerate(column):
            for index, value in enumerate(values):
                if needle in value.lower():
                    scores[position] = 1.0
                    indexes[position] = index
                    break
        return scores, indexes

    def offsets(self, text: str) -> tuple[int, ...]:
        """Where the query occurs in *text* (first occurrence), for the snippet."""
        position = text.lower().find(self._needle)
        return (min(position, len(text)),) if position >= 0 else ()


def _lines_containing(text: str, needle: str) -> set[str]:
    """The lines of newline-framed *text* that contain *needle* (found with str.find)."""
    found: set[str] = set()
    position = text.find(needle)
    while position != -1:
        start = text.rfind("\n", 0, position) + 1
        end = text.find("\n", position)
        found.add(text[start:end])
        position = text.find(needle, end)
    return found


def _candidates(query_token: str, choices: list[str], vocabulary: str) -> set[str]:
    """The tokens of *choices* that may score above zero against *query_token*.

    A superset of the rule table's matches: every token containing the query token or
    sharing its first SHARED_PREFIX_MIN characters contains that head (found by substring
    search over *vocabulary*, the choices framed by newlines); rapidfuzz's batched,
    cut-off edit distance covers the typo rule.
    """
    found = _lines_containing(vocabulary, query_token[:SHARED_PREFIX_MIN])
    budget = edit_budget(query_token)
    if budget:
        near = process.extract(
            query_token, choices, scorer=Levenshtein.distance, score_cutoff=budget, limit=None
        )
        found.update(choice for choice, _, _ in near)
    return found


class QueryMatcher:
    """Scores field values against one fuzzy query.

    It keeps, for the lifetime of one ranking call, the score vector (one entry per query
    alternative) of every distinct field token it has met, so each distinct token is
    scored once per query however many values contain it. ``learn`` scores the whole
    vocabulary of a batch of values at once; after that, a value costs one C-level set
    intersection (``distinct & positive``) plus a loop over the few tokens that matched.
    """

    def __init__(self, query: Query) -> None:
        self._alternatives = [alt for term in query.terms for alt in term.alternatives]
        slots: list[tuple[int, ...]] = []
        position = 0
        for term in query.terms:
            slots.append(tuple(range(position, position + len(term.alternatives))))
            position += len(term.alternatives)
        self._slots = slots
        self._one_per_term = all(len(slot) == 1 for slot in slots)
        self._zeros = [0.0] * len(slots)
        self._phrase = tuple(token_texts(query.text))
        self._seen: set[str] = set()
        self._positive: set[str] = set()
        self._scores: dict[str, list[float]] = {}

    def learn(self, values: Sequence[AnalyzedText]) -> None:
        """Score, in one batch, every token of *values* not met before."""
        vocabulary = set().union(*[value.distinct for value in values])
        vocabulary -= self._seen
        if vocabulary:
            self._learn(vocabulary)

    def _learn(self, tokens: AbstractSet[str]) -> None:
        """Score tokens never seen before against every alternative.

        A cheap filter picks the few tokens that can score above zero (they contain the
        query token, share its first characters, or are within its edit budget); only those
        go through the full rule table.
        """
        self._seen.update(tokens)
        choices = list(tokens)
        vocabulary = "\n" + "\n".join(choices) + "\n"
        for index, alternative in enumerate(self._alternatives):
            for token in _candidates(alternative.token, choices, vocabulary):
                score = alternative_score(alternative, token)
                if score > 0.0:
                    vector = self._scores.get(token)
                    if vector is None:
                        vector = self._scores[token] = [0.0] * len(self._alternatives)
                        self._positive.add(token)
                    vector[index] = score

    def _term_bests(self, hits: AbstractSet[str]) -> list[float]:
        """Best score of each term over the matching tokens *hits* (non-empty)."""
        scores = self._scores
        if len(hits) == 1:
            best = scores[next(iter(hits))]
        else:
            best = list(map(max, zip(*[scores[token] for token in hits], strict=True)))
        if self._one_per_term:
            return best
        return [max(best[i] for i in slot) for slot in self._slots]

    def _combine(self, value: AnalyzedText, bests: list[float]) -> float:
        """``mean(best per term) * coverage``, scaled for headroom, plus the phrase bonus."""
        count = len(bests)
        covered = count - bests.count(0.0)
        if not covered:
            return 0.0
        base = (sum(bests) / count) * (covered / count) * BASE_SCALE
        if value.contains_sequence(self._phrase):
            return min(1.0, base + PHRASE_BONUS)
        return base

    def term_scores(self, value: AnalyzedText) -> list[float]:
        """Best score of each query term against any token of *value*."""
        distinct = value.distinct
        if not self._seen.issuperset(distinct):
            self._learn(distinct - self._seen)
        hits = distinct & self._positive
        return self._term_bests(hits) if hits else self._zeros

    def score(self, value: AnalyzedText) -> float:
        """Field score of one value (0..1)."""
        return self._combine(value, self.term_scores(value))

    def best_values(
        self, column: Sequence[Sequence[AnalyzedText]]
    ) -> tuple[list[float], list[int]]:
        """For each entry of *column* (the values of one field of one record): the best
        value score and that value's index (-1 if none matched).

        Every value must have gone through ``learn`` first. A value without any matching
        token costs one C-level set intersection.
        """
        scores = [0.0] * len(column)
        indexes = [-1] * len(column)
        positive = self._positive
        for position, values in enumerate(column):
            for index, value in enumerate(values):
                hits = value.distinct & positive
                if hits:
                    score = self._combine(value, self._term_bests(hits))
                    if score > scores[position]:
                        scores[position] = score
                        indexes[position] = index
        return scores, indexes

    def term_best_rows(self, column: Sequence[Sequence[AnalyzedText]]) -> list[list[float] | None]:
        """For each entry of *column*: the best score of each term over all its values
        (None when no value holds a match). Every value must have gone through ``learn``."""
        rows: list[list[float] | None] = []
        positive = self._positive
        for values in column:
            row: list[float] | None = None
            for value in values:
                hits = value.distinct & positive
                if hits:
                    bests = self._term_bests(hits)
                    row = list(bests) if row is None else list(map(max, row, bests))
            rows.append(row)
        return rows

    def offsets(self, value: AnalyzedText) -> tuple[int, ...]:
        """Start offsets of the tokens that gave each term its best score in *value*."""
        bests = self.term_scores(value)
        targets = set()
        for token in value.distinct & self._positive:
            vector = self._scores[token]
            for slot, best in zip(self._slots, bests, strict=True):
                if best > 0.0 and max(vector[i] for i in slot) == best:
                    targets.add(token)
                    break
        if not targets:
            return ()
        return token_starts(value, targets)


def _ascii_token_starts(text: str, targets: AbstractSet[str]) -> list[int]:
    """Start offsets, ascending, of the runs of ASCII *text* whose lowercase form is in
    *targets*: each target's occurrences in the lowercased text (``str.find``) that are
    whole runs (no letter or digit on either side)."""
    lowered = text.lower()
    end = len(lowered)
    found: list[int] = []
    for target in targets:
        size = len(target)
        start = lowered.find(target) if size else -1
        while start != -1:
            stop = start + size
            if (start == 0 or not lowered[start - 1].isalnum()) and (
                stop == end or not lowered[stop].isalnum()
            ):
                found.append(start)
            start = lowered.find(target, start + 1)
    found.sort()
    return found


def token_starts(value: AnalyzedText, targets: AbstractSet[str]) -> tuple[int, ...]:
    """Start offsets in ``value.text`` of the tokens whose normalized form is in *targets*."""
    return text_token_starts(value.text, targets)


def text_token_starts(text: str, targets: AbstractSet[str]) -> tuple[int, ...]:
    """Start offsets in *text* of the tokens whose normalized form is in *targets*."""
    expansions: list[tuple[int, int]] = []
    if not text.isascii():
        found = folded_latin(text)
        if found is not None:  # Latin letters only: runs and tokens as in the folded text
            text, expansions = found
    if text.isascii():
        # ASCII tokens are the runs themselves, lowercased: find them directly.
        starts = _ascii_token_starts(text, targets)
        return _unfolded(starts, expansions) if expansions else tuple(starts)
    return _mixed_token_starts(text, targets)


def _unfolded(starts: list[int], expansions: list[tuple[int, int]]) -> tuple[int, ...]:
    """Offsets *starts* (ascending) in a folded text, mapped back to the original text.

    A run starts at a character boundary of the original (a folded character's letters
    are word characters, as the original's was), so what precedes a start is whole
    characters: subtract what those added."""
    found: list[int] = []
    position, added = 0, 0
    for start in starts:
        while position < len(expansions) and expansions[position][0] < start:
            added += expansions[position][1]
            position += 1
        found.append(start - added)
    return tuple(found)


def _mixed_token_starts(text: str, targets: AbstractSet[str]) -> tuple[int, ...]:
    """``token_starts`` for text with other non-ASCII characters: runs are found as the
    tokenizer finds them; an ASCII run is its own token (lowercased), and only the other
    runs go through the tokenizer (a run is tokenized the same alone as in its text)."""
    found: list[int] = []
    for match in _RUN_RE.finditer(text):
        run = match.group()
        if run.isascii():
            if run.lower() in targets:
                found.append(match.start())
        else:
            found.extend(match.start() + t.start for t in tokenize(run) if t.text in targets)
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


def match_spans(text: str, query: Query) -> list[tuple[int, int]]:
    """The ``(start, end)`` character spans of *text* that *query* matches, in order: every
    occurrence of a containment query's text, else every token some alternative scores."""
    spans: list[tuple[int, int]] = []
    if not text:
        return spans
    if query.containment:
        needle = query.text.lower() if query.match_mode == "exact" else query.text.strip().lower()
        lowered = text.lower()
        start = lowered.find(needle) if needle else -1
        while start != -1:
            spans.append((start, start + len(needle)))
            start = lowered.find(needle, start + len(needle))
        return spans
    alternatives = [alt for term in query.terms for alt in term.alternatives]
    for token in tokenize(text):
        if any(alternative_score(alt, token.text) > 0 for alt in alternatives):
            spans.append((token.start, token.end))
    return spans
