"""Record filters compiled to Tantivy clauses (kind first), for the listings Tantivy answers.

The filter model and its rules over the engine's columns are ``opindex.engine``'s
(``IndexFilters``, ``filter_mask``); these clauses keep the same rules.
"""

from __future__ import annotations

from typing import Final

import tantivy

from opindex.engine import IndexFilters, StatusSelection, updated_timestamp
from opindex.errors import InvalidArgumentError
from opindex.index import schema as s
from opindex.search import KINDS, Kind


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


_KNOWN: Final = s.MISSING + 1
"""The lowest stored update time that is a real moment."""
