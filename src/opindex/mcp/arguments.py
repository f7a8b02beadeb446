"""Tool argument types: one annotated type per argument, with the description a model reads.

The tool signatures in :mod:`opindex.mcp.tools` are built from these, so every tool
spells an argument (its name, bounds, default and description) the same way.
"""

from __future__ import annotations

from typing import Annotated, Any, Final, Literal

from pydantic import Field

from opindex.envelope import MAX_ID, MAX_LIMIT, MAX_QUERY_LENGTH

ID_BOUNDS: Final[dict[str, Any]] = {"ge": 1, "le": MAX_ID, "strict": True}
"""Every id: 1 … 2⁶³−1, a JSON integer (no true/false, no "5", no 5.0)."""

QueryText = Annotated[
    str,
    Field(
        max_length=MAX_QUERY_LENGTH,
        description=(
            "Plain words or a question; typos, word order and missing accents are tolerated. "
            "Empty lists the most recently updated records."
        ),
    ),
]
MatchMode = Annotated[
    Literal["fuzzy", "exact"],
    Field(
        description=(
            "'fuzzy' (default) tolerates typos, word order and partial words; 'exact' is a "
            "case-insensitive substring, for strings known verbatim."
        ),
    ),
]
Limit = Annotated[
    int,
    Field(ge=1, le=MAX_LIMIT, strict=True, description=f"Most results to return (1-{MAX_LIMIT})."),
]
Id = Annotated[int, Field(**ID_BOUNDS)]
"""An id where a name is also accepted: bounded and strict like every id."""
ProjectRef = Annotated[
    Id | str | None,
    Field(description="Project id, identifier or name."),
]
StatusChoice = Annotated[
    str | Id | list[Id | str],
    Field(
        description=("'open', 'closed', 'all', a status name or a list of status ids or names."),
    ),
]
TypeRef = Annotated[Id | str | None, Field(description="Type id or name ('Bug').")]
AssigneeRef = Annotated[
    Id | str | None,
    Field(description="Assigned to this user: id, login, name or 'me'."),
]
AuthorRef = Annotated[
    Id | str | None,
    Field(description="Created by this user: id, login, name or 'me'."),
]
UpdatedAfter = Annotated[
    str | None,
    Field(
        description=(
            "Updated at or after this ISO date or datetime ('2026-03-01', "
            "'2026-03-01T09:00Z'; UTC unless an offset is given)."
        ),
    ),
]
UpdatedBefore = Annotated[
    str | None,
    Field(description="Updated before this ISO date or datetime."),
]
SortChoice = Annotated[
    Literal["relevance", "updated"],
    Field(description="'updated': most recently updated first."),
]
DetailChoice = Annotated[
    Literal["brief", "full"],
    Field(
        description=("'full' adds per-field scores, ids and people to each result."),
    ),
]
RecordDetail = Annotated[
    Literal["brief", "full"],
    Field(description="'full' also reads relations and attachment names live."),
]
LookupKind = Annotated[
    Literal["projects", "users", "statuses", "types"],
    Field(description="What to list."),
]
LookupText = Annotated[
    str | None,
    Field(max_length=200, description="Optional: only entries whose name contains this text."),
]
SourceChoice = Annotated[
    Literal["auto", "index", "live"],
    Field(
        description=(
            "'auto' (default): the index when fresh, else OpenProject live. 'index': the "
            "index even if stale. 'live': ask OpenProject now (slower)."
        ),
    ),
]
Fallback = Annotated[
    bool,
    Field(
        strict=True,
        description=(
            "When nothing matches, retry with a relaxed query (prefixes, fewer words, related "
            "terms) and say so first. Default true."
        ),
    ),
]
RecordId = Annotated[
    int, Field(**ID_BOUNDS, description="The record's numeric id, from a search result.")
]
WorkPackageId = Annotated[
    int, Field(**ID_BOUNDS, description="The work package's numeric id, from a search result.")
]
OptionalQuery = Annotated[
    str | None,
    Field(
        max_length=MAX_QUERY_LENGTH,
        description=(
            "Return only the comments matching this text, best first (typo tolerant); "
            "omit to list all in order."
        ),
    ),
]
SubjectFilter = Annotated[
    str | None,
    Field(
        max_length=MAX_QUERY_LENGTH,
        description=(
            "Subject contains this text (OpenProject's substring match, no typo tolerance)."
        ),
    ),
]
Offset = Annotated[
    int, Field(ge=1, le=MAX_ID, strict=True, description="Page number of the listing, from 1.")
]
