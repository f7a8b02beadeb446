"""What a ranker reports a record matched: each matching field's best value, every value's score.

The engine computes these over its analysed records (``opindex.engine``'s ``field_bests``);
``rank.describe_records`` turns them into the ranking the scalar scorer gives.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class FieldBest:
    """A field of a record with a match: its position in the kind's field list, its best
    value's score (raw, not rounded) and that value's position among the field's values."""

    field: int
    score: float
    value_index: int
    targets: tuple[int, ...] = ()
    """The token ids of that value giving a term its best score there (for the snippet)."""


@dataclass(frozen=True, slots=True)
class RecordBests:
    """What ``field_bests`` finds for one record."""

    fields: list[FieldBest]
    """Its fields whose best value scores above 0, in field order."""
    values: Mapping[int, tuple[float, ...]]
    """The raw score of every value of each field holding values, by field position
    (0 for a value without a match): ``QueryMatcher.score`` of the value's text."""
