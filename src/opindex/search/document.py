"""The kind-neutral record shape that every search path scores: the parity contract."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

Kind = Literal[
    "work_package", "wiki_page", "meeting", "news", "document", "project", "version", "attachment"
]
KINDS: tuple[Kind, ...] = (
    "work_package",
    "wiki_page",
    "meeting",
    "news",
    "document",
    "project",
    "version",
    "attachment",
)
"""Every kind of record opindex indexes, in the order answers list them."""

KIND_LABELS: Mapping[Kind, tuple[str, str]] = {
    "work_package": ("work package", "work packages"),
    "wiki_page": ("wiki page", "wiki pages"),
    "meeting": ("meeting", "meetings"),
    "news": ("news item", "news items"),
    "document": ("document", "documents"),
    "project": ("project", "projects"),
    "version": ("version", "versions"),
    "attachment": ("attached file", "attached files"),
}
"""Each kind in words: (one, several)."""

KIND_KEYS: Mapping[Kind, str] = {
    "work_package": "work_packages",
    "wiki_page": "wiki_pages",
    "meeting": "meetings",
    "news": "news",
    "document": "documents",
    "project": "projects",
    "version": "versions",
    "attachment": "attachments",
}
"""Each kind's plural key where outputs count records per kind (``documents``)."""


@dataclass(frozen=True, slots=True)
class FieldValue:
    """One text value of a field; *ref* names the sub-record it came from, if any.

    Examples: a comment (ref = activity id), an agenda item title or notes (ref = agenda
    item id), an outcome note (ref = agenda item id, so a match points at its item), the
    text of an attached file (ref = attachment id).
    """

    text: str
    ref: int | None = None


@dataclass(frozen=True, slots=True)
class SearchDocument:
    """What the scorer sees of a record. The live path and the index build the same one.

    ``fields`` maps a field name of the kind (see ``opindex.search.fields``) to its values.
    A field absent from the mapping was not read (e.g. deep content the live path did not
    enrich); an empty tuple means it was read and is empty.
    """

    kind: Kind
    id: int
    fields: Mapping[str, tuple[FieldValue, ...]] = field(default_factory=dict)
