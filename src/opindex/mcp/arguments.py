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
            "What to look for, in plain words or a natural-language question. Typos, word "
            "order, partial words and missing accents are tolerated. Leave empty to list the "
            "most recently updated records unranked."
        ),
    ),
]
MatchMode = Annotated[
    Literal["fuzzy", "exact"],
    Field(
        description=(
            "Matching strategy. 'fuzzy' (default) tolerates typos, word reordering, and "
            "partial words. Use 'exact' only for literal strings you know verbatim "
            "(case-insensitive substring match)."
        ),
    ),
]
Limit = Annotated[
    int,
    Field(ge=1, le=MAX_LIMIT, strict=True, description=f"Most results to return (1-{MAX_LIMIT})."),
]
ProjectId = Annotated[
    int | None,
    Field(**ID_BOUNDS, description="Only records of this project (numeric project id)."),
]
StatusChoice = Annotated[
    Literal["open", "closed", "all"] | list[Annotated[int, Field(**ID_BOUNDS)]],
    Field(
        description=(
            "Work-package status filter: 'open', 'closed', 'all' (default), or a list of "
            "numeric status ids."
        ),
    ),
]
TypeId = Annotated[
    int | None,
    Field(**ID_BOUNDS, description="Only work packages of this type (numeric type id)."),
]
AssigneeId = Annotated[
    int | None,
    Field(**ID_BOUNDS, description="Only work packages assigned to this user (numeric user id)."),
]
SourceChoice = Annotated[
    Literal["auto", "index", "live"],
    Field(
        description=(
            "Where to search. 'auto' (default): opindex's index when it is fresh, otherwise "
            "OpenProject live. 'index': the index even if stale. 'live': ask OpenProject now "
            "(slower, reads full content of only the most promising candidates)."
        ),
    ),
]
Fallback = Annotated[
    bool,
    Field(
        strict=True,
        description=(
            "When nothing matches, retry once with a relaxed query (prefix matching, then "
            "dropping the least useful word, then related terms) and report which. Default true."
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
            "Optional: rank the comments against this text (typo tolerant) and return only "
            "matching ones. Omit to list every comment in order."
        ),
    ),
]
SubjectFilter = Annotated[
    str | None,
    Field(
        max_length=MAX_QUERY_LENGTH,
        description=(
            "Optional server-side filter: subject contains this text (OpenProject's own "
            "substring match, no typo tolerance)."
        ),
    ),
]
Offset = Annotated[
    int, Field(ge=1, le=MAX_ID, strict=True, description="Page number of the listing, from 1.")
]
