"""Each field's best value in a few analysed records, as the scalar ranker finds it.

``vector_rank.score_table`` scores every record holding a match but keeps only record
scores. For the records an answer returns, ``rank_records`` also reports each matching
field: its best value's score and that value's position (the first value reaching it).
``field_bests`` computes them from the same analysed values (``ValueTable``) and term
matches, in the same floating-point operations as ``score_table`` (so the scores are
equal to the last bit), reading only the records asked for. Only the chosen values then
need their text analysed, for snippets. Every value's score comes along too, so the
values listed on their own (comments, agenda items) need no scoring again either.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from opindex.engine.sorted_sets import expand_ranges, unique_sorted
from opindex.engine.vector_rank import (
    IntArray,
    TermMatches,
    ValueTable,
    phrase_owners,
    value_tokens,
)
from opindex.search import BASE_SCALE, PHRASE_BONUS, FieldBest, RecordBests

FloatArray = npt.NDArray[np.float64]


def _token_scores(term: TermMatches, tokens: IntArray) -> FloatArray:
    """The term's score of each token (0 for the tokens it does not match)."""
    scores = np.zeros(len(tokens), dtype=np.float64)
    if not len(term.ids) or not len(tokens):
        return scores
    at = np.minimum(np.searchsorted(term.ids, tokens), len(term.ids) - 1)
    hit = term.ids[at] == tokens
    scores[hit] = term.scores[at[hit]]
    return scores


@dataclass(frozen=True, slots=True)
class _Values:
    """Scores of some values, and what their snippets need: the tokens, by value."""

    scores: FloatArray
    tokens: IntArray
    starts: IntArray  # where each value's tokens start in ``tokens``, then the end
    targets: npt.NDArray[np.bool_]  # per token: gives a term its best in its value


def _value_scores(
    table: ValueTable,
    values: IntArray,
    terms: Sequence[TermMatches],
    phrase: npt.NDArray[np.int32] | None,
) -> _Values:
    """The score of each of *values*, as ``score_table`` computes it (0 without a match)."""
    tokens, lengths = value_tokens(table, values)
    owners = np.repeat(np.arange(len(values), dtype=np.int64), lengths)
    count = len(terms)
    bests = np.zeros((len(values), count), dtype=np.float64)
    per_term = [_token_scores(term, tokens) for term in terms]
    for column, scores_of_term in enumerate(per_term):
        np.maximum.at(bests[:, column], owners, scores_of_term)
    targets = np.zeros(len(tokens), dtype=bool)
    for column, scores_of_term in enumerate(per_term):
        targets |= (scores_of_term == bests[owners, column]) & (scores_of_term > 0.0)
    total = bests[:, 0].copy()
    for column in range(1, count):
        total = total + bests[:, column]  # left to right, as Python's sum
    covered = np.count_nonzero(bests, axis=1)
    scores: FloatArray = (total / count) * (covered / count) * BASE_SCALE
    if phrase is not None and len(phrase):
        rows = phrase_owners(tokens, owners, phrase)
        rows = rows[covered[rows] > 0]  # score_table adds the bonus to matched values only
        scores[rows] = np.minimum(1.0, scores[rows] + PHRASE_BONUS)
    return _Values(scores, tokens, np.r_[0, np.cumsum(lengths)].astype(np.int64), targets)


def field_bests(
    table: ValueTable,
    terms: Sequence[TermMatches],
    phrase: npt.NDArray[np.int32] | None,
    docs: Sequence[int],
) -> list[RecordBests]:
    """For each record position of *docs*: its fields whose best value scores above 0,
    in field order, each with that score, the first value reaching it and that value's
    tokens giving a term its best score in it (``QueryMatcher.offsets``' targets); and
    the score of each of its values.

    *terms* and *phrase* as for ``score_table`` (at least one term)."""
    if not terms:
        raise ValueError("field_bests needs at least one term")
    wanted = np.asarray(docs, dtype=table.value_doc.dtype)  # no cast of the whole column
    first = np.searchsorted(table.value_doc, wanted, side="left").astype(np.int64)
    last = np.searchsorted(table.value_doc, wanted, side="right").astype(np.int64)
    values = expand_ranges(first, last - first)
    analysed = _value_scores(table, values, terms, phrase)
    scores = analysed.scores.tolist()
    fields = table.value_field[values].tolist()
    found: list[RecordBests] = []
    position = 0
    for start, stop in zip(first.tolist(), last.tolist(), strict=True):
        bests: list[tuple[int, float, int, int]] = []  # field, score, index, row
        by_field: dict[int, tuple[float, ...]] = {}
        field, field_start = -1, position
        for _ in range(stop - start):
            value_field, score = fields[position], scores[position]
            if value_field != field:
                if field >= 0:
                    by_field[field] = tuple(scores[field_start:position])
                field, field_start = value_field, position
            if score > 0.0 and (not bests or bests[-1][0] != field or score > bests[-1][1]):
                bests.append((field, score, position - field_start, position))
                if len(bests) > 1 and bests[-2][0] == field:
                    del bests[-2]
            position += 1
        if field >= 0:
            by_field[field] = tuple(scores[field_start:position])
        chosen = [FieldBest(f, s, index, _targets(analysed, row)) for f, s, index, row in bests]
        found.append(RecordBests(chosen, by_field))
    return found


def _targets(analysed: _Values, row: int) -> tuple[int, ...]:
    """The distinct target token ids of value *row* of *analysed*, ascending."""
    start, stop = int(analysed.starts[row]), int(analysed.starts[row + 1])
    chosen = analysed.tokens[start:stop][analysed.targets[start:stop]]
    return tuple(unique_sorted(chosen).tolist())
