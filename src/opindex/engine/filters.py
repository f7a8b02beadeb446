"""Record filters (project, status, type, assignee, author, updated): the one filter model,
the filter columns the engine stores per record, and its rules over those columns.

The same model is compiled a second way, to Tantivy clauses, by ``opindex.index`` for the
listings Tantivy answers (``index_filters.filter_clauses``); tests prove the two agree.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Final, Literal

import numpy as np
import numpy.typing as npt

StatusSelection = Literal["open", "closed"] | tuple[int, ...]
"""The statuses an index filter keeps: open ones, closed ones, or these status ids."""


class Columns:
    """The names of the filter columns (Tantivy's fields of the same name, ``index.schema``)."""

    PROJECT_ID: Final = "project_id"
    STATUS_ID: Final = "status_id"
    IS_CLOSED: Final = "is_closed"
    TYPE_ID: Final = "type_id"
    ASSIGNEE_ID: Final = "assignee_id"
    AUTHOR_ID: Final = "author_id"
    UPDATED_TS: Final = "updated_ts"
    """Microseconds since the epoch (UTC); MISSING when unknown (``updated_value``)."""
    MISSING: Final = -(2**63)
    """An absent integer filter value."""


s = Columns  # spelled as index.schema spells them (s.PROJECT_ID), so the rules read alike
_EPOCH: Final = datetime(1970, 1, 1, tzinfo=UTC)


def updated_timestamp(value: datetime | None) -> int:
    """Microseconds since the epoch (naive datetimes are taken as UTC); 0 when unknown
    (a filter bound; a stored value is ``updated_value``)."""
    if value is None:
        return 0
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    delta = value - _EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds


def updated_value(value: datetime | None) -> int:
    """The stored update-time filter value: ``updated_timestamp``, or MISSING when unknown
    (0 is a real moment, 1970-01-01T00:00:00Z, and earlier ones are negative; D192)."""
    return s.MISSING if value is None else updated_timestamp(value)


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
