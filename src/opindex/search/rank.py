"""Generic record ranking: weighted fields, raw-score gate, deterministic order."""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Generic, Protocol, TypeVar, cast

from opindex.errors import InvalidArgumentError
from opindex.search.analysis import AnalyzedText
from opindex.search.match import (
    ContainmentMatcher,
    QueryMatcher,
    cross_field_scores,
    round_score,
    text_token_starts,
)
from opindex.search.match_details import RecordBests
from opindex.search.query import MatchMode, Query, parse_query
from opindex.search.snippet import extract_snippet

DEFAULT_MIN_SCORE = 0.35

FieldText = str | AnalyzedText
FieldContent = str | AnalyzedText | Sequence[str] | Sequence[AnalyzedText] | None
"""What a field extractor returns: one value, several values (a multi-valued field such as
comments, each scored on its own; all raw or all analysed), or None when the record has no
such field. Analysed values (``AnalyzedText``) skip tokenization at query time."""


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
    value_scores: Mapping[str, tuple[float, ...]] | None = field(default=None, compare=False)
    """The raw score of every value of each field holding values, where the scorer had
    them at hand (``describe_records``), so sub-records (comments, agenda items) are listed
    without scoring their text again; None where they were not kept. Not part of the
    answer: two rankings that differ only here are equal."""


def _analysed(content: FieldContent) -> Sequence[AnalyzedText]:
    """The values of a field, analysed (tokenized) where they are still raw text."""
    if content is None:
        return ()
    if isinstance(content, AnalyzedText):
        return (content,)
    if isinstance(content, str):
        return (AnalyzedText(content),)
    if not content or isinstance(content[0], AnalyzedText):
        return cast(Sequence[AnalyzedText], content)
    return [AnalyzedText(text) for text in cast(Sequence[str], content)]


def _texts(content: FieldContent) -> Sequence[str]:
    """The values of a field as raw text."""
    if content is None:
        return ()
    if isinstance(content, str):
        return (content,)
    if isinstance(content, AnalyzedText):
        return (content.text,)
    if not content or isinstance(content[0], str):
        return cast(Sequence[str], content)
    return [value.text for value in cast(Sequence[AnalyzedText], content)]


Column = list[Sequence[FieldText]]
"""The values of one field for every record, in record order."""
Scores = tuple[list[float], list[int]]
"""Per record of a column: the best value score and that value's index (-1 if none)."""


class _Scorer:
    """One query's matcher over raw text (containment) or analysed values (fuzzy)."""

    def __init__(self, query: Query) -> None:
        self._containment = ContainmentMatcher(query) if query.containment else None
        self._fuzzy = None if query.containment else QueryMatcher(query)

    def score_columns(
        self, contents: list[list[FieldContent]]
    ) -> tuple[list[Column], list[Scores]]:
        """Score each field (a column of extracted contents) for every record."""
        if self._fuzzy is not None:
            analysed = [[_analysed(content) for content in column] for column in contents]
            self._fuzzy.learn([v for column in analysed for values in column for v in values])
            scores = [self._fuzzy.best_values(column) for column in analysed]
            return cast(list[Column], analysed), scores
        assert self._containment is not None
        texts = [[_texts(content) for content in column] for column in contents]
        scores = [self._containment.best_values(column) for column in texts]
        return cast(list[Column], texts), scores

    def cross(self, columns: list[Column], weights: Sequence[float]) -> list[tuple[float, float]]:
        """Per record: its cross-field (raw, weighted) score; zeros in containment mode."""
        count = len(columns[0]) if columns else 0
        if self._fuzzy is None:
            return [(0.0, 0.0)] * count
        per_field = [
            self._fuzzy.term_best_rows(cast(list[Sequence[AnalyzedText]], column))
            for column in columns
        ]
        max_weight = max(weights)
        return [
            cross_field_scores([rows[p] for rows in per_field], weights, max_weight)
            for p in range(count)
        ]

    def offsets(self, value: FieldText) -> tuple[int, ...]:
        """Offsets of the matched tokens (or of the contained query) in *value*."""
        if self._fuzzy is None:
            assert self._containment is not None
            return self._containment.offsets(_raw(value))
        assert isinstance(value, AnalyzedText)
        return self._fuzzy.offsets(value)


def _raw(value: FieldText) -> str:
    return value if isinstance(value, str) else value.text


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


def _collect_candidates(
    records: list[R],
    fields: Sequence[FieldSpec[R]],
    scorer: _Scorer,
    gate: float | None,
    limit: int | None,
) -> tuple[list[_Candidate[R]], int]:
    """Score every field of every record and keep the records with a matching field whose
    rounded score reaches *gate* (None: any matching field).

    Returns the best *limit* kept records (score desc, id asc, then input order) with
    their matching fields, and how many records were kept in all. Only those best ones
    get their matching fields collected.
    """
    columns, results = scorer.score_columns([[spec.extract(r) for r in records] for spec in fields])
    max_weight = max(spec.weight for spec in fields)
    crosses = scorer.cross(columns, [spec.weight for spec in fields])
    if len(results) == 1:
        best_raw = results[0][0]
    else:
        best_raw = list(map(max, *(scores for scores, _ in results)))
    best_raw = [max(score, cross[0]) for score, cross in zip(best_raw, crosses, strict=True)]
    if gate is None:
        positions = [p for p, score in enumerate(best_raw) if score > 0.0]
    else:
        # The best rounded score is the rounded best raw score (rounding is monotone).
        positions = [
            p for p, score in enumerate(best_raw) if score > 0.0 and round_score(score) >= gate
        ]
    field_scores = [(spec.weight, column[0]) for spec, column in zip(fields, results, strict=True)]
    keyed: list[tuple[float, int, int]] = []
    for position in positions:
        best: float | None = None
        for weight, scores in field_scores:
            score = scores[position]
            if score and round_score(score) > 0.0:
                weighted = score * weight / max_weight
                if best is None or weighted > best:
                    best = weighted
        cross_raw, cross_weighted = crosses[position]
        if cross_raw and round_score(cross_raw) > 0.0 and (best is None or cross_weighted > best):
            best = cross_weighted
        if best is not None:
            keyed.append((-round_score(best), records[position].id, position))
    chosen = sorted(keyed) if limit is None else heapq.nsmallest(limit, keyed)
    return [
        _candidate(records, fields, columns, results, p, -score) for score, _, p in chosen
    ], len(keyed)


def _candidate(
    records: list[R],
    fields: Sequence[FieldSpec[R]],
    columns: list[Column],
    results: list[Scores],
    position: int,
    score: float,
) -> _Candidate[R]:
    """The record at *position* with its matching fields and its (rounded) *score*."""
    max_weight = max(spec.weight for spec in fields)
    hits: list[_FieldHit] = []
    for order, (spec, column, (scores, indexes)) in enumerate(
        zip(fields, columns, results, strict=True)
    ):
        value_score = scores[position]
        rounded = round_score(value_score) if value_score else 0.0
        if rounded > 0.0:
            value = column[position][indexes[position]]
            weighted = value_score * spec.weight / max_weight
            hits.append(_FieldHit(order, spec.name, rounded, weighted, indexes[position], value))
    return _Candidate(records[position], score, hits)


def _finish(candidate: _Candidate[R], offsets: Callable[[_FieldHit], tuple[int, ...]]) -> Ranked[R]:
    """The ranked record: its matching fields, heaviest first, each with its snippet
    around the *offsets* of its matched tokens."""
    hits = sorted(candidate.hits, key=lambda hit: (-hit.weighted, hit.order))
    matches = tuple(
        FieldMatch(
            field=hit.name,
            score=hit.score,
            snippet=extract_snippet(_raw(hit.value), offsets(hit)),
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
    ranked, _ = rank_records_counted(
        records, query, fields, min_score=min_score, limit=limit, match_mode=match_mode
    )
    return ranked


def rank_records_counted(
    records: Iterable[R],
    query: str | Query,
    fields: Sequence[FieldSpec[R]],
    *,
    min_score: float = DEFAULT_MIN_SCORE,
    limit: int | None = None,
    match_mode: MatchMode = "fuzzy",
) -> tuple[list[Ranked[R]], int]:
    """``rank_records``, and how many records it would return without *limit*.

    The count comes from the same scoring pass, so a caller reporting how many records
    matched does not score them twice.
    """
    parsed = query if isinstance(query, Query) else parse_query(query, match_mode)
    _validate(min_score, limit, fields)
    if not parsed.containment and not parsed.terms:
        listed = list(records)
        unscored = [Ranked(record=record, score=0.0, matches=()) for record in listed[:limit]]
        return unscored, len(listed)
    scorer = _Scorer(parsed)
    gate = None if parsed.containment else min_score
    best, kept = _collect_candidates(list(records), fields, scorer, gate, limit)
    return [_finish(candidate, lambda hit: scorer.offsets(hit.value)) for candidate in best], kept


def _found_at(targets: dict[int, frozenset[str]], hit: _FieldHit) -> tuple[int, ...]:
    """Where the tokens *targets* names for the hit's field start in its value."""
    found = targets[hit.order]
    return text_token_starts(_raw(hit.value), found) if found else ()


def describe_records(
    entries: Sequence[tuple[R, float, RecordBests]],
    fields: Sequence[FieldSpec[R]],
    token_text: Callable[[int], str],
) -> list[Ranked[R]]:
    """``rank_records``' answer for records already scored elsewhere, in the given order.

    Each entry is a record, its (rounded) score and its fields' best values as
    ``best_values.field_bests`` finds them over the analysed records (for a fuzzy query
    with terms); *token_text* names a token id. The matching fields are kept, weighted
    and ordered as ``rank_records`` does, and each snippet is centred on the tokens the
    entry names, found in the value's text: nothing is tokenized again.
    """
    max_weight = max(spec.weight for spec in fields)
    described: list[Ranked[R]] = []
    for record, score, bests in entries:
        hits: list[_FieldHit] = []
        targets: dict[int, frozenset[str]] = {}
        for best in bests.fields:
            rounded = round_score(best.score) if best.score else 0.0
            if rounded > 0.0:
                spec = fields[best.field]
                text = _texts(spec.extract(record))[best.value_index]
                weighted = best.score * spec.weight / max_weight
                hits.append(
                    _FieldHit(best.field, spec.name, rounded, weighted, best.value_index, text)
                )
                targets[best.field] = frozenset(map(token_text, best.targets))

        ranked = _finish(_Candidate(record, score, hits), partial(_found_at, targets))
        values = {fields[position].name: scores for position, scores in bests.values.items()}
        described.append(replace(ranked, value_scores=values))
    return described
