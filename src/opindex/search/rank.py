"""Generic record ranking: weighted fields, raw-score gate, deterministic order."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from itertools import islice
from typing import Generic, Protocol, TypeVar

from opindex.errors import InvalidArgumentError
from opindex.search.analysis import AnalyzedText
from opindex.search.match import ContainmentMatcher, QueryMatcher, round_score
from opindex.search.query import MatchMode, Query, parse_query
from opindex.search.snippet import extract_snippet

DEFAULT_MIN_SCORE = 0.35

FieldText = str | AnalyzedText
FieldContent = FieldText | Sequence[FieldText] | None
"""What a field extractor returns: one value, several values (a multi-valued field such as
comments, each scored on its own), or None when the record has no such field."""


class Identified(Protocol):
    """Anything with an integer ``id`` (used to break score ties)."""

    @property
    def id(self) -> int: ...


T = TypeVar("T")
R = TypeVar("R", bound=Identified)


@dataclass(frozen=True, slots=True)
class FieldSpec(Generic[T]):
    """A searchable field of records of type T: its name, weight and extractor."""

    name: str
    weight: float
    extract: Callable[[T], FieldContent]


@dataclass(frozen=True, slots=True)
class FieldMatch:
    """A field that matched: its raw score (0..1), an excerpt, and which value matched.

    ``value_index`` is the position of the best-matching value among the values the
    extractor returned (0 for a single-valued field), so a caller can map it back to,
    e.g., a comment or an agenda item.
    """

    field: str
    score: float
    snippet: str | None
    value_index: int


@dataclass(frozen=True, slots=True)
class Ranked(Generic[T]):
    """A record with its score (0..1, weighted) and its matching fields, best first."""

    record: T
    score: float
    matches: tuple[FieldMatch, ...]


def _values(content: FieldContent) -> Sequence[FieldText]:
    if content is None:
        return ()
    if isinstance(content, (str, AnalyzedText)):  # a tuple is faster than a union
        return (content,)
    return content


class _Scorer:
    """One query's matcher over raw strings (containment) or analysed values (fuzzy)."""

    def __init__(self, query: Query) -> None:
        self._containment = ContainmentMatcher(query) if query.containment else None
        self._fuzzy = None if query.containment else QueryMatcher(query)

    def prepare(self, values: Sequence[FieldText]) -> Sequence[FieldText]:
        """Analyse raw strings for a fuzzy query; containment reads the raw text."""
        if self._fuzzy is None:
            return values
        for value in values:
            if isinstance(value, str):
                return [AnalyzedText(v) if isinstance(v, str) else v for v in values]
        return values

    def learn(self, values: Iterable[FieldText]) -> None:
        """Score the vocabulary of all *values* in one batch (fuzzy queries only)."""
        if self._fuzzy is not None:
            self._fuzzy.learn(value for value in values if isinstance(value, AnalyzedText))

    def best(self, values: Sequence[FieldText]) -> tuple[float, int]:
        """The best score among *values* and its index (-1 if none scored)."""
        best, best_index = 0.0, -1
        if self._fuzzy is not None:
            score_value = self._fuzzy.score
            for index, value in enumerate(values):
                assert isinstance(value, AnalyzedText)
                score = score_value(value, learned=True)
                if score > best:
                    best, best_index = score, index
            return best, best_index
        assert self._containment is not None
        for index, value in enumerate(values):
            text = value if isinstance(value, str) else value.text
            if self._containment.score(text) > best:
                return 1.0, index
        return best, best_index

    def offsets(self, value: FieldText) -> tuple[int, ...]:
        """Offsets of the matched tokens (or of the contained query) in *value*."""
        if self._fuzzy is None:
            assert self._containment is not None
            return self._containment.offsets(value if isinstance(value, str) else value.text)
        assert isinstance(value, AnalyzedText)
        return self._fuzzy.offsets(value)


@dataclass(slots=True)
class _FieldHit:
    order: int
    name: str
    score: float  # rounded raw field score
    weighted: float
    value_index: int
    value: FieldText


@dataclass(slots=True)
class _Candidate(Generic[R]):
    record: R
    score: float
    hits: list[_FieldHit]


def _validate(min_score: float, limit: int | None, fields: Sequence[FieldSpec[T]]) -> None:
    if isinstance(min_score, bool) or not isinstance(min_score, int | float):
        raise InvalidArgumentError(f"min_score must be a number, not {min_score!r}")
    if not 0.0 <= min_score <= 1.0:
        raise InvalidArgumentError(f"min_score must be between 0 and 1, not {min_score!r}")
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int)):
        raise InvalidArgumentError(f"limit must be an integer or None, not {limit!r}")
    if limit is not None and limit < 0:
        raise InvalidArgumentError(f"limit must not be negative, not {limit}")
    if not fields:
        raise InvalidArgumentError("at least one field spec is required")
    for spec in fields:
        if not math.isfinite(spec.weight) or spec.weight <= 0:
            raise InvalidArgumentError(f"field {spec.name!r} needs a positive weight")


def _prepare(
    record: R, fields: Sequence[FieldSpec[R]], scorer: _Scorer
) -> list[Sequence[FieldText]]:
    return [scorer.prepare(_values(spec.extract(record))) for spec in fields]


def _score_record(
    per_field: list[Sequence[FieldText]],
    fields: Sequence[FieldSpec[R]],
    scorer: _Scorer,
    max_weight: float,
) -> list[_FieldHit]:
    hits: list[_FieldHit] = []
    for order, values in enumerate(per_field):
        if not values:
            continue
        best, best_index = scorer.best(values)
        rounded = round_score(best) if best else 0.0
        if rounded > 0.0:
            spec = fields[order]
            weighted = best * spec.weight / max_weight
            hits.append(
                _FieldHit(order, spec.name, rounded, weighted, best_index, values[best_index])
            )
    return hits


def _finish(candidate: _Candidate[R], scorer: _Scorer) -> Ranked[R]:
    hits = sorted(candidate.hits, key=lambda hit: (-hit.weighted, hit.order))
    matches = tuple(
        FieldMatch(
            field=hit.name,
            score=hit.score,
            snippet=extract_snippet(
                hit.value if isinstance(hit.value, str) else hit.value.text,
                scorer.offsets(hit.value),
            ),
            value_index=hit.value_index,
        )
        for hit in hits
    )
    return Ranked(record=candidate.record, score=candidate.score, matches=matches)


def rank_records(
    records: Iterable[R],
    query: str | Query,
    fields: Sequence[FieldSpec[R]],
    *,
    min_score: float = DEFAULT_MIN_SCORE,
    limit: int | None = None,
    match_mode: MatchMode = "fuzzy",
) -> list[Ranked[R]]:
    """Rank *records* against *query* over *fields*, best first.

    A record is kept when its best raw field score reaches *min_score*; it is ordered by
    ``max(field score * weight) / max declared weight``, ties by ascending id. Scores are
    rounded to two decimals before gating and ordering. A containment query (exact mode,
    or a fuzzy query under 3 characters) scores 1 or 0 per field and ignores *min_score*.
    An empty fuzzy query returns every record, in input order, with score 0 and no
    matches. *match_mode* applies to a query given as text; a parsed Query carries its own.
    """
    parsed = query if isinstance(query, Query) else parse_query(query, match_mode)
    _validate(min_score, limit, fields)
    if not parsed.containment and not parsed.terms:
        return [Ranked(record=record, score=0.0, matches=()) for record in islice(records, limit)]
    scorer = _Scorer(parsed)
    max_weight = max(spec.weight for spec in fields)
    prepared = [(record, _prepare(record, fields, scorer)) for record in records]
    scorer.learn(value for _, per_field in prepared for values in per_field for value in values)
    candidates: list[_Candidate[R]] = []
    for record, per_field in prepared:
        hits = _score_record(per_field, fields, scorer, max_weight)
        if not hits:
            continue
        if not parsed.containment and max(hit.score for hit in hits) < min_score:
            continue
        score = round_score(max(hit.weighted for hit in hits))
        candidates.append(_Candidate(record, score, hits))
    candidates.sort(key=lambda candidate: (-candidate.score, candidate.record.id))
    return [_finish(candidate, scorer) for candidate in candidates[:limit]]
