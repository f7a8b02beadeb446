"""Records as every search path sees them: a SearchDocument plus display/filter attributes."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime

from opindex.search import SearchDocument

AttributeValue = str | int | float | bool | None


@dataclass(frozen=True, slots=True)
class Record:
    """One indexable record of a tenant.

    ``document`` is what the scorer reads (identical for the live path and the index).
    The other fields are for filters and display, never for scoring.

    ``attributes`` holds kind-specific values, by convention:
    work packages: status_id, status_name, is_closed, type_id, type_name, assignee_id,
    assignee_name, author_id, author_name, created_at (ISO 8601), display_id,
    priority_name, start_date, due_date, parent_id, parent_title, and (when the comments
    were read) comment_meta: the JSON of ``record_builders.comment_meta``;
    wiki pages: slug;
    meetings: start_time (ISO 8601), location, state, author_id, author_name.
    """

    document: SearchDocument
    title: str
    project_id: int | None = None
    project_name: str | None = None
    updated_at: datetime | None = None
    attributes: Mapping[str, AttributeValue] = field(default_factory=dict)

    @property
    def id(self) -> int:
        """The OpenProject id of the record."""
        return self.document.id
