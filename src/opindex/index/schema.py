"""The Tantivy schema of a tenant index, its version marker, and the field names per kind."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Final

import tantivy

from opindex.engine import Columns
from opindex.errors import IndexNeedsRebuildError, IndexUnavailableError
from opindex.search import FIELD_SPECS, KINDS, Kind, field_names, token_texts

# Bump whenever the schema or the stored record format changes: an index written under
# another version is reported as "needs rebuild" and never read. Field lists and the
# tokenizer are checked on their own (recorded beside the index).
# 13: unknown update time stored as MISSING (D192); 12: analysis format 5 (D185); 11: D181
SCHEMA_VERSION: Final = 13
VERSION_FILE: Final = "opindex-index.json"

# Searchable fields per kind: the scorer's field specs are the one source. The list is
# recorded beside the index, so a field added to the specs makes old indexes "needs rebuild".
KIND_FIELDS: Final[dict[Kind, tuple[str, ...]]] = {kind: field_names(kind) for kind in KINDS}
# Field weights of the scorer: candidates are ordered by an estimate that uses them.
FIELD_WEIGHTS: Final[dict[Kind, dict[str, float]]] = {
    kind: {spec.name: spec.weight for spec in FIELD_SPECS[kind]} for kind in KINDS
}

# Tantivy fields. Tantivy indexes no text: the analysis store holds every token (the
# vocabulary, the postings), for fuzzy and substring searches alike (DECISIONS D180).
KEY: Final = "key"  # "kind:id", raw: the unique delete/upsert term
KIND: Final = "kind"
ID: Final = "id"  # i64: deletes by a u64 term silently do nothing
RECORD: Final = "record"  # stored JSON of the Record
# The filter fields are the engine's filter columns (one filter model: opindex.engine).
PROJECT_ID: Final = Columns.PROJECT_ID
STATUS_ID: Final = Columns.STATUS_ID
IS_CLOSED: Final = Columns.IS_CLOSED
TYPE_ID: Final = Columns.TYPE_ID
ASSIGNEE_ID: Final = Columns.ASSIGNEE_ID
AUTHOR_ID: Final = Columns.AUTHOR_ID  # filters by author (since version 2)
UPDATED_TS: Final = Columns.UPDATED_TS  # microseconds since the epoch (UTC); MISSING when unknown
MISSING: Final = Columns.MISSING
"""An absent integer filter value in the analysis store's columns."""

INTEGER_FILTER_FIELDS: Final = (PROJECT_ID, STATUS_ID, TYPE_ID, ASSIGNEE_ID, AUTHOR_ID)


def build_schema() -> tantivy.Schema:
    """The schema of schema version SCHEMA_VERSION."""
    builder = tantivy.SchemaBuilder()
    builder.add_text_field(KEY, stored=False, tokenizer_name="raw", index_option="basic")
    builder.add_text_field(KIND, stored=False, tokenizer_name="raw", index_option="basic")
    builder.add_integer_field(ID, stored=False, indexed=True, fast=True)
    builder.add_bytes_field(RECORD, stored=True, indexed=False)
    for name in INTEGER_FILTER_FIELDS:
        builder.add_integer_field(name, indexed=True, fast=True)
    builder.add_boolean_field(IS_CLOSED, indexed=True, fast=True)
    builder.add_integer_field(UPDATED_TS, indexed=True, fast=True)
    return builder.build()


# Text whose tokens fingerprint the tokenizer: an index built by a tokenizer that splits
# or folds any of these differently holds other tokens and must be rebuilt.
_TOKENIZER_PROBE: Final = (
    "Müller Mu\u0308ller Straße ΟΔΟΣ ﬁnance İstanbul Ørsted łódź æon þorn đak café "
    "日本語テキスト 한국어 كَتَبَ हिन्दी x² Ⅻ ǅemal snake_case v2.0-rc1 a\u200bb 😀x"
)


def tokenizer_fingerprint() -> str:
    """A short hash of the tokens of a probe text under the current tokenizer."""
    tokens = "\n".join(token_texts(_TOKENIZER_PROBE))
    return hashlib.sha256(tokens.encode("utf-8")).hexdigest()[:16]


def _marker() -> dict[str, object]:
    return {
        "schema_version": SCHEMA_VERSION,
        "fields": {kind: list(names) for kind, names in KIND_FIELDS.items()},
        "tokenizer": tokenizer_fingerprint(),
    }


def write_version(path: Path) -> None:
    """Mark the index at *path* as written under SCHEMA_VERSION and the current fields."""
    marker = path / VERSION_FILE
    tmp = marker.with_suffix(".tmp")
    tmp.write_text(json.dumps(_marker()), encoding="utf-8")
    tmp.replace(marker)


def _read_marker(path: Path) -> dict[str, object]:
    marker = path / VERSION_FILE
    try:
        data = json.loads(marker.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise IndexUnavailableError(f"index at {path} has no {VERSION_FILE}") from exc
    except (OSError, ValueError) as exc:
        raise IndexUnavailableError(f"index at {path}: unreadable {VERSION_FILE}") from exc
    if not isinstance(data, dict) or not isinstance(data.get("schema_version"), int):
        raise IndexUnavailableError(f"index at {path}: {VERSION_FILE} has no schema_version")
    return data


def read_version(path: Path) -> int:
    """The schema version recorded beside the index at *path*.

    Raises IndexUnavailableError when the marker is missing or unreadable.
    """
    version = _read_marker(path)["schema_version"]
    assert isinstance(version, int)
    return version


def check_version(path: Path) -> None:
    """Raise IndexNeedsRebuildError unless the index at *path* matches this schema."""
    data = _read_marker(path)
    version = data["schema_version"]
    assert isinstance(version, int)
    if version != SCHEMA_VERSION:
        raise IndexNeedsRebuildError(
            f"index at {path} has schema version {version}, this opindex reads version "
            f"{SCHEMA_VERSION}: the index needs a rebuild",
            found_version=version,
        )
    expected = _marker()
    if data.get("fields") != expected["fields"]:
        raise IndexNeedsRebuildError(
            f"index at {path} was built for other searchable fields: the index needs a rebuild",
            found_version=version,
        )
    if data.get("tokenizer") != expected["tokenizer"]:
        raise IndexNeedsRebuildError(
            f"index at {path} was built by another version of the tokenizer: the index needs "
            "a rebuild",
            found_version=version,
        )
