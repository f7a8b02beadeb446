"""The scorer's rules over pre-analysed records, as array operations (numpy).

ARCHITECTURE invariant 3: equal to ``rank_records`` to the last bit.

``opindex.search.rank`` scores records one value at a time from their text. Here the
records were analysed when they were indexed (``ValueTable``: each field value's token
ids, and for each token the values holding it), and each vocabulary token was scored
once per query term (``TermMatches``). A search then touches only the values that hold
a matching token, and computes for them exactly what ``rank_records`` computes, in the
same floating-point operations and order, so the scores are equal to the last bit:

- value score: ``(sum of best per term / n) * (covered / n) * BASE_SCALE``, plus the
  phrase bonus when the query's tokens occur consecutively (capped at 1);
- field score: the best value; cross-field score: each term's best anywhere in the
  record, with the weight of the heaviest field holding it (``match.cross_field_scores``);
- record gate: the best field or cross-field raw score, rounded, reaches ``min_score``;
  record score: the best ``field score * weight / max weight`` over the fields whose
  rounded score is above 0, or the weighted cross-field score, rounded.

``tests/search/test_vector_rank.py`` checks equality with ``rank_records`` on random
records and queries.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from opindex.engine import token_streams
from opindex.engine.coverage import phrase_holds_every_term, within_reach
from opindex.engine.packed import Packed24
from opindex.engine.score_rounding import gate_threshold, rounds_above_zero
from opindex.engine.sorted_sets import expand_ranges, sort_order, unique_sorted
from opindex.engine.token_rank import TokenRank
from opindex.search import BASE_SCALE, PHRASE_BONUS, SPREAD_SCALE

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]


SLICED_TOKENS = 16
"""``_postings`` reads the lists of up to this many tokens a slice each, rather than
gathering every position (an exact word's few tokens often hold 100,000 values at 1M)."""


@dataclass(frozen=True, slots=True)
class TermMatches:
    """For one query term: the vocabulary ids scoring above 0 (ascending) and the best
    score of each over the term's alternatives."""

    ids: IntArray
    scores: FloatArray


@dataclass(frozen=True, slots=True)
class ValueTable:
    """The analysed field values of the records of one kind (one index segment).

    Values are stored record by record, and within a record field by field, so the
    record and field of consecutive values never decrease.
    ``value_doc[v]``: the record position of value v; ``value_field[v]``: its field's
    position in the kind's field list; ``stream[stream_start[v]:stream_start[v+1]]``: its
    token ids in order, varint-coded (``token_streams``; ``value_tokens`` reads them).
    ``token_rank`` (the token ids the table holds, ascending) with ``posting_start`` and
    ``posting_values``: for the token at rank r, the values holding it are
    ``posting_values[posting_start[r]:posting_start[r+1]]`` (ascending; a segment file may
    hold them packed: ``Packed24``).
    """

    value_doc: npt.NDArray[np.int32]
    value_field: npt.NDArray[np.uint8]
    stream_start: IntArray
    stream: npt.NDArray[np.uint8]
    token_rank: TokenRank = field(repr=False, compare=False)
    posting_start: IntArray
    posting_values: npt.NDArray[np.int32] | Packed24


@dataclass(frozen=True, slots=True)
class Scored:
    """Records that pass the gate: their positions (ascending) and scores before rounding
    (``round_scores`` gives the reported score; ``top_rounded`` rounds only the best)."""

    docs: IntArray
    weighted: FloatArray


def value_tokens(table: ValueTable, values: IntArray) -> tuple[IntArray, IntArray]:
    """The token ids of *values*, value after value, and how many each value has."""
    return token_streams.of_values(table.stream, table.stream_start, values)


def _held(table: ValueTable, term: TermMatches) -> tuple[TermMatches, IntArray]:
    """The term's tokens that *table* holds, with their scores, and where they are in its
    postings."""
    found, at = table.token_rank.find(term.ids)
    return TermMatches(term.ids[found], term.scores[found]), at[found]


def _postings(
    table: ValueTable, at: IntArray, scores: FloatArray
) -> tuple[npt.NDArray[Any], FloatArray]:
    """The values holding the tokens at posting positions *at* (integers as stored), each
    with its token's score."""
    starts = table.posting_start[at].astype(np.int64)  # stored narrow and unsigned
    stops = table.posting_start[at + 1].astype(np.int64)
    lengths = stops - starts
    if len(at) <= SLICED_TOKENS:  # a few long lists: copied a slice each
        stored = table.posting_values
        bounds = zip(starts.tolist(), stops.tolist(), strict=True)
        pieces = [stored[start:stop] for start, stop in bounds]
        values = np.concatenate(pieces) if pieces else stored[0:0]
    else:
        values = table.posting_values[expand_ranges(starts, lengths)]
    # as stored (narrow, unsigned): widened only where they are computed with
    return values, np.repeat(scores, lengths)


def gather(table: ValueTable, term: TermMatches) -> tuple[npt.NDArray[Any], FloatArray]:
    """The values holding any of the term's tokens, each with that token's score."""
    held, at = _held(table, term)
    return _postings(table, at, held.scores)


def _group_starts(keys: IntArray) -> IntArray:
    """Start of each run of equal values in sorted *keys*."""
    if not len(keys):
        return np.zeros(0, dtype=np.int64)
    return np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]])


def _term_bests(parts: Sequence[tuple[IntArray, FloatArray]]) -> tuple[IntArray, FloatArray]:
    """The values holding a match of any term, and their best score per term (matrix);
    *parts*: per term, the values holding its tokens and those tokens' scores."""
    count = len(parts)
    keys = np.concatenate(
        [values.astype(np.int64) * count + position for position, (values, _) in enumerate(parts)]
    )
    scores = np.concatenate([scores for _, scores in parts])
    keys, order = sort_order(keys)
    scores = scores[order]
    starts = _group_starts(keys)
    if not len(starts):
        return np.zeros(0, dtype=np.int64), np.zeros((0, count), dtype=np.float64)
    bests = np.maximum.reduceat(scores, starts)
    keys = keys[starts]
    if count == 1:  # a key is the value: one row each
        return keys, bests[:, None]
    values, slots = keys // count, keys % count
    first = _group_starts(values)
    rows = np.cumsum(np.r_[False, values[1:] != values[:-1]])
    matrix = np.zeros((len(first), count), dtype=np.float64)
    matrix[rows, slots] = bests
    return values[first], matrix


def _phrase_values(
    table: ValueTable, phrase: npt.NDArray[np.int32], among: IntArray | None = None
) -> IntArray:
    """Values holding the token ids of *phrase* consecutively (ascending); only those of
    *among* (ascending) when given, when it is shorter than every token's posting list."""
    held, at = table.token_rank.find(unique_sorted(phrase))
    if not len(held) or not held.all():
        return np.zeros(0, dtype=np.int64)
    starts = table.posting_start[at].tolist()
    stops = table.posting_start[at + 1].tolist()
    lists = [table.posting_values[start:stop] for start, stop in zip(starts, stops, strict=True)]
    lists.sort(key=len)
    if among is not None and len(among) < len(lists[0]):
        lists.insert(0, among.astype(lists[0].dtype))  # value positions: int32 as stored
    found_values = lists[0]
    for other in lists[1:]:  # both ascending: look the few up in the many (no sort)
        if not len(found_values):
            break
        where = np.minimum(np.searchsorted(other, found_values), len(other) - 1)
        found_values = found_values[other[where] == found_values]
    holding = found_values.astype(np.int64)
    if len(phrase) == 1:
        return holding
    tokens, lengths = value_tokens(table, holding)
    owners = np.repeat(holding, lengths)
    return phrase_owners(tokens, owners, phrase)


def phrase_owners(
    tokens: npt.NDArray[Any], owners: IntArray, phrase: npt.NDArray[np.int32]
) -> IntArray:
    """The owners (distinct, ascending) of the runs of *tokens* equal to *phrase* whose
    tokens all have the same owner (*owners*: ascending, one per token)."""
    width = len(phrase)
    if width == 0 or len(tokens) < width:
        return np.zeros(0, dtype=np.int64)
    starts = np.flatnonzero(tokens[: len(tokens) - width + 1] == phrase[0])
    for offset in range(1, width):  # narrowed one token at a time, as few as match
        keep = (tokens[starts + offset] == phrase[offset]) & (
            owners[starts + offset] == owners[starts]
        )
        starts = starts[keep]
    return unique_sorted(owners[starts]).astype(np.int64)


def _cross_field(
    field_bests: FloatArray, field_weights: FloatArray, doc_starts: IntArray, max_weight: float
) -> tuple[FloatArray, FloatArray]:
    """Per record, the cross-field (raw, weighted) score of ``match.cross_field_scores``.

    *field_bests*: per (record, field) with a match, the best score of each term;
    *field_weights*: that field's weight; *doc_starts*: where each record's rows start.
    """
    count = field_bests.shape[1]
    bests = np.maximum.reduceat(field_bests, doc_starts, axis=0)
    owner = np.repeat(np.arange(len(doc_starts)), np.diff(np.r_[doc_starts, len(field_bests)]))
    holds_best = (field_bests == bests[owner]) & (field_bests > 0.0)
    heaviest = np.maximum.reduceat(
        np.where(holds_best, field_weights[:, None], 0.0), doc_starts, axis=0
    )
    lightest = np.where(bests > 0.0, heaviest, np.inf).min(axis=1)
    total = bests[:, 0].copy()
    for column in range(1, count):  # left to right, as Python's sum
        total = total + bests[:, column]
    coverage = np.count_nonzero(bests, axis=1) / count
    raw = (total / count) * coverage * BASE_SCALE * SPREAD_SCALE
    return raw, raw * lightest / max_weight


def score_bound(terms: Sequence[TermMatches], phrase: npt.NDArray[np.int32] | None) -> float:
    """A score no value, field or record can exceed for these term matches: every term
    at its best token's score, the terms without a match uncovered, plus the phrase bonus
    when the phrase is in the vocabulary. Computed with the value score's operations in
    their order; each is monotone, so no computed score of ``score_table`` exceeds it (a
    cross-field score is this times SPREAD_SCALE < 1 at most)."""
    count = len(terms)
    if not count:
        return 0.0
    maxima = [float(term.scores.max()) if len(term.scores) else 0.0 for term in terms]
    total = maxima[0]
    for best in maxima[1:]:
        total = total + best  # left to right, as the value scores
    covered = count - maxima.count(0.0)
    bound = (total / count) * (covered / count) * BASE_SCALE
    if phrase is not None and len(phrase):
        bound = min(1.0, bound + PHRASE_BONUS)
    return bound


def score_table(
    table: ValueTable,
    terms: Sequence[TermMatches],
    phrase: npt.NDArray[np.int32] | None,
    weights: Sequence[float],
    allowed: BoolArray,
    min_score: float,
) -> Scored:
    """The records of *table* that pass the gate, with their rounded scores.

    *phrase*: the token ids of the query's tokens (None when one of them is in no
    record). *weights*: per field position. *allowed*: per record, whether it may be
    returned at all (alive, of the kind, inside the filters). When even
    ``score_bound`` of the tokens this table holds rounds below *min_score* (a query word
    matching none of them), no record can pass and nothing is gathered. With several
    terms, only the allowed records whose score bound can reach the gate
    (``coverage.within_reach``) are scored.
    """
    found = [_held(table, term) for term in terms]
    present = [held for held, _ in found]
    located = [(at, held.scores) for held, at in found]
    if score_bound(present, phrase) < gate_threshold(min_score):
        return Scored(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float64))
    parts = [_postings(table, at, scores) for at, scores in located]
    with_phrase: IntArray | None = None
    if len(terms) > 1:  # score only the records that can reach the gate (``coverage``)
        phrased: bool | npt.NDArray[np.int32] = False
        if phrase is not None and len(phrase):
            phrased = phrase_holds_every_term(phrase, [t.ids for t in present])
            if not phrased:
                with_phrase = _phrase_values(table, phrase)
                phrased = table.value_doc[with_phrase]
        parts = within_reach(table.value_doc, parts, allowed, min_score, phrased)
    values, bests = _term_bests(parts)
    if not len(values):
        return Scored(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float64))
    count = len(terms)
    total = bests[:, 0].copy()
    for column in range(1, count):
        total = total + bests[:, column]  # left to right, as Python's sum
    covered = np.count_nonzero(bests, axis=1)
    value_scores = (total / count) * (covered / count) * BASE_SCALE
    if phrase is not None and len(phrase):
        if with_phrase is None:  # only these can take the bonus
            with_phrase = _phrase_values(table, phrase, values)
        rows = np.searchsorted(values, with_phrase)
        inside = rows < len(values)
        inside[inside] = values[rows[inside]] == with_phrase[inside]
        rows = rows[inside]
        value_scores[rows] = np.minimum(1.0, value_scores[rows] + PHRASE_BONUS)
    # best value per (record, field): keys never decrease along the values
    field_count = max(len(weights), 1)
    docs = table.value_doc[values].astype(np.int64)
    field_keys = docs * field_count + table.value_field[values]
    starts = _group_starts(field_keys)
    field_scores = np.maximum.reduceat(value_scores, starts)
    field_docs = docs[starts]
    fields = table.value_field[values][starts].astype(np.int64)
    weight_of = np.asarray(weights, dtype=np.float64)
    weighted = np.where(
        rounds_above_zero(field_scores),
        (field_scores * weight_of[fields]) / float(weight_of.max()),
        -1.0,
    )
    doc_starts = _group_starts(field_docs)
    best_raw = np.maximum.reduceat(field_scores, doc_starts)
    best_weighted = np.maximum.reduceat(weighted, doc_starts)
    if count > 1:  # one term: the value holding its best scores (b*0.85)/0.95 of this
        cross_raw, cross_weighted = _cross_field(
            np.maximum.reduceat(bests, starts, axis=0),
            weight_of[fields],
            doc_starts,
            float(weight_of.max()),
        )
        best_raw = np.maximum(best_raw, cross_raw)
        cross_counts = rounds_above_zero(cross_raw)
        best_weighted = np.maximum(best_weighted, np.where(cross_counts, cross_weighted, -1.0))
    record_docs = field_docs[doc_starts]
    keep = (
        allowed[record_docs]
        & (best_raw > 0.0)
        & (best_raw >= gate_threshold(min_score))
        & (best_weighted >= 0.0)
    )
    return Scored(record_docs[keep], best_weighted[keep])


def build_table(values: Sequence[tuple[int, int, Sequence[int]]]) -> ValueTable:
    """A ValueTable from (record position, field position, token ids) per value, given
    record by record and, within a record, field by field."""
    count = len(values)
    value_doc = np.fromiter((doc for doc, _, _ in values), dtype=np.int32, count=count)
    value_field = np.fromiter((field for _, field, _ in values), dtype=np.uint8, count=count)
    lengths = np.fromiter((len(tokens) for _, _, tokens in values), dtype=np.int64, count=count)
    value_start = np.zeros(count + 1, dtype=np.int64)
    np.cumsum(lengths, out=value_start[1:])
    tokens = np.fromiter(
        (token for _, _, sequence in values for token in sequence),
        dtype=np.int32,
        count=int(value_start[-1]),
    )
    return table_from_arrays(value_doc, value_field, value_start, tokens)


def table_from_arrays(
    value_doc: npt.NDArray[np.int32],
    value_field: npt.NDArray[np.uint8],
    value_start: IntArray,
    tokens: npt.NDArray[np.int32],
) -> ValueTable:
    """A ValueTable of values whose token ids are ``tokens[value_start[v]:value_start[v+1]]``,
    with its postings computed from them."""
    owners = np.repeat(np.arange(len(value_doc), dtype=np.int64), np.diff(value_start))
    pairs = unique_sorted((tokens.astype(np.int64) << 32) | owners)
    posting_keys = pairs >> 32
    first = _group_starts(posting_keys)
    stream, stream_start = token_streams.encode(tokens, value_start)
    return ValueTable(
        value_doc=value_doc,
        value_field=value_field,
        stream_start=stream_start,
        stream=stream,
        token_rank=TokenRank(posting_keys[first]),
        posting_start=np.r_[first, len(pairs)].astype(np.int64),
        posting_values=(pairs & 0xFFFFFFFF).astype(np.int32),
    )
