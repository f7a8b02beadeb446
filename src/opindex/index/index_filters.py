"""Record filters (kind, project, status, type, assignee, author, updated): Tantivy
clauses and the same rules over the analysis store's columns."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final, Literal

import numpy as np
import numpy.typing as npt
import tantivy

from opindex.errors import InvalidArgumentError
from opindex.index import schema as s
from opindex.index.record_codec import updated_timestamp
from opindex.search import KINDS, Kind

StatusSelection = Literal["open", "closed"] | tuple[int, ...]
"""The statuses an index filter keeps: open ones, closed ones, or these status ids."""


@dataclass(frozen=True, slots=True)
class IndexFilters:
    """Restrictions on candidates; None means "no restriction".

    ``status``: "open" / "closed" (by the work package's is_closed flag) or status ids.
    ``assignee_ids`` may contain None, meaning "unassigned".
    ``updated_after`` is inclusive, ``updated_before`` exclusive.
    A record lacking an attribute never matches a filter on it (e.g. a wiki page never
    matches a status filter).
    """

    project_ids: tuple[int, ...] | None = None
    status: StatusSelection | None = None
    type_ids: tuple[int, ...] | None = None
    assignee_ids: tuple[int | None, ...] | None = None
    author_ids: tuple[int, ...] | None = None
    updated_after: datetime | None = None
    updated_before: datetime | None = None


NO_FILTERS = IndexFilters()


def _const(query: tantivy.Query) -> tantivy.Query:
    """A filter clause that adds nothing to the score."""
    return tantivy.Query.const_score_query(query, 0.0)


def _any_int(schema: tantivy.Schema, field: str, values: tuple[int, ...]) -> tantivy.Query:
    for value in values:  # Tantivy's integer fields are 64-bit signed
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 2**63:
            raise InvalidArgumentError(f"{field}: ids are 1 … {2**63 - 1}, not {value!r}")
    return tantivy.Query.term_set_query(schema, field, list(values))


def check_kind(kind: str) -> Kind:
    """*kind* as a Kind; InvalidArgumentError if it is none."""
    for known in KINDS:
        if kind == known:
            return known
    raise InvalidArgumentError(f"unknown record kind {kind!r}; use one of {KINDS}")


def kind_query(schema: tantivy.Schema, kind: str) -> tantivy.Query:
    """All records of *kind*."""
    return tantivy.Query.term_query(schema, s.KIND, check_kind(kind))


def filter_clauses(schema: tantivy.Schema, kind: str, filters: IndexFilters) -> list[tantivy.Query]:
    """Zero-score MUST clauses restricting a search to *kind* and *filters*."""
    clauses = [_const(kind_query(schema, kind))]
    if filters.project_ids is not None:
        clauses.append(_const(_any_int(schema, s.PROJECT_ID, filters.project_ids)))
    if filters.status is not None:
        clauses.append(_const(_status_query(schema, filters.status)))
    if filters.type_ids is not None:
        clauses.append(_const(_any_int(schema, s.TYPE_ID, filters.type_ids)))
    if filters.assignee_ids is not None:
        clauses.append(_const(_assignee_query(schema, filters.assignee_ids)))
    if filters.author_ids is not None:
        clauses.append(_const(_any_int(schema, s.AUTHOR_ID, filters.author_ids)))
    if filters.updated_after is not None or filters.updated_before is not None:
        clauses.append(_const(_updated_query(schema, filters)))
    return clauses


def _status_query(schema: tantivy.Schema, status: StatusSelection) -> tantivy.Query:
    if status == "open" or status == "closed":
        return tantivy.Query.term_query(schema, s.IS_CLOSED, status == "closed")
    if isinstance(status, tuple | list):
        return _any_int(schema, s.STATUS_ID, tuple(status))
    raise InvalidArgumentError(f"status filter must be 'open', 'closed' or ids, not {status!r}")


def _assignee_query(schema: tantivy.Schema, ids: tuple[int | None, ...]) -> tantivy.Query:
    concrete = tuple(i for i in ids if i is not None)
    parts: list[tuple[tantivy.Occur, tantivy.Query]] = []
    if concrete:
        parts.append((tantivy.Occur.Should, _any_int(schema, s.ASSIGNEE_ID, concrete)))
    if len(concrete) < len(ids):
        unassigned = tantivy.Query.boolean_query(
            [
                (tantivy.Occur.Must, tantivy.Query.all_query()),
                (tantivy.Occur.MustNot, tantivy.Query.exists_query(s.ASSIGNEE_ID)),
            ]
        )
        parts.append((tantivy.Occur.Should, unassigned))
    if not parts:
        return tantivy.Query.empty_query()
    return tantivy.Query.boolean_query(parts)


def _updated_query(schema: tantivy.Schema, filters: IndexFilters) -> tantivy.Query:
    # Unknown update times are stored as MISSING; a lower bound above it keeps them out
    # (0 and negative stamps are real moments: at and before 1970-01-01, D192).
    lower = updated_timestamp(filters.updated_after) if filters.updated_after else _KNOWN
    upper = updated_timestamp(filters.updated_before) - 1 if filters.updated_before else None
    return tantivy.Query.range_query(
        schema, s.UPDATED_TS, tantivy.FieldType.Integer, lower_bound=lower, upper_bound=upper
    )


FILTER_COLUMNS: Final = (
    s.PROJECT_ID,
    s.STATUS_ID,
    s.TYPE_ID,
    s.ASSIGNEE_ID,
    s.AUTHOR_ID,
    s.IS_CLOSED,
    s.UPDATED_TS,
)
"""The per-record filter values the analysis store keeps (MISSING when absent; is_closed
as 0 or 1), each column stored in the narrowest signed type (``narrow_column``)."""
MISSING: Final = s.MISSING
_KNOWN: Final = s.MISSING + 1
"""The lowest stored update time that is a real moment."""
_SIGNED: Final = (np.int8, np.int16, np.int32)


def narrow_column(values: npt.NDArray[np.int64]) -> npt.NDArray[Any]:
    """A filter column (int64, MISSING when absent) in the narrowest signed type whose
    minimum is free to stand for MISSING (DECISIONS D150); int64 when none is."""
    present = values[values != MISSING]
    low = int(present.min()) if len(present) else 0
    high = int(present.max()) if len(present) else 0
    for dtype in _SIGNED:
        info = np.iinfo(dtype)
        if info.min < low and high <= info.max:
            return np.where(values == MISSING, info.min, values).astype(dtype)
    return values


def missing_value(column: npt.NDArray[Any]) -> int:
    """The value that stands for MISSING in a stored filter column: its type's minimum."""
    return int(np.iinfo(column.dtype).min)


def widen_column(column: npt.NDArray[Any]) -> npt.NDArray[np.int64]:
    """A stored filter column as int64 with MISSING (the inverse of ``narrow_column``)."""
    wide = column.astype(np.int64)
    if column.dtype != np.int64:
        wide[column == missing_value(column)] = MISSING
    return wide


def _isin(column: npt.NDArray[Any], ids: Sequence[int]) -> npt.NDArray[np.bool_]:
    """Which values of a stored column are among *ids* (ids the column's type cannot hold,
    its MISSING included, match nothing)."""
    info = np.iinfo(column.dtype)
    return np.isin(column, [i for i in ids if info.min < i <= info.max])


def filter_mask(
    columns: Mapping[str, npt.NDArray[Any]], filters: IndexFilters
) -> npt.NDArray[np.bool_] | None:
    """Which records of the analysis columns pass *filters* (None: all of them).

    *columns* as stored (``narrow_column``). The same rules as ``filter_clauses``: a
    record lacking the attribute never matches, "unassigned" matches a record without an
    assignee, the update range is inclusive and excludes unknown (MISSING) update times;
    ``updated_before`` is exclusive.
    """
    mask: npt.NDArray[np.bool_] | None = None

    def both(part: npt.NDArray[np.bool_]) -> None:
        nonlocal mask
        mask = part if mask is None else mask & part

    if filters.project_ids is not None:
        both(_isin(columns[s.PROJECT_ID], filters.project_ids))
    if filters.status == "open" or filters.status == "closed":
        both(columns[s.IS_CLOSED] == (1 if filters.status == "closed" else 0))
    elif filters.status is not None:
        both(_isin(columns[s.STATUS_ID], tuple(filters.status)))
    if filters.type_ids is not None:
        both(_isin(columns[s.TYPE_ID], filters.type_ids))
    if filters.assignee_ids is not None:
        concrete = [i for i in filters.assignee_ids if i is not None]
        assignee = columns[s.ASSIGNEE_ID]
        part = _isin(assignee, concrete)
        if len(concrete) < len(filters.assignee_ids):
            part |= assignee == missing_value(assignee)
        both(part)
    if filters.author_ids is not None:
        both(_isin(columns[s.AUTHOR_ID], filters.author_ids))
    if filters.updated_after is not None or filters.updated_before is not None:
        updated = columns[s.UPDATED_TS]
        part = updated != missing_value(updated)
        if filters.updated_after is not None:
            part &= updated >= updated_timestamp(filters.updated_after)
        if filters.updated_before is not None:
            part &= updated < updated_timestamp(filters.updated_before)
        both(part)
    return mask
