"""Records in and out of the index: stored JSON, token streams and filter values."""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import datetime
from typing import Any, TypeGuard

import tantivy

from opindex.engine import updated_value
from opindex.errors import IndexUnavailableError, InvalidArgumentError
from opindex.index import schema as s
from opindex.records import AttributeValue, Record
from opindex.search import KINDS, FieldValue, Kind, SearchDocument, fast_token_texts


def record_key(kind: str, record_id: int) -> str:
    """The unique key of a record inside a tenant index."""
    return f"{kind}:{record_id}"


Rows = list[tuple[int, list[str]]]
"""A record's analysed values: (field position in the kind's field list, tokens), field by
field in that order, values in their order."""


def analyse(record: Record) -> Rows:
    """The tokens of every field value of *record* (the one tokenization at write time)."""
    fields = record.document.fields
    rows: Rows = []
    for position, name in enumerate(s.KIND_FIELDS[record.document.kind]):
        for value in fields.get(name, ()):
            rows.append((position, fast_token_texts(value.text)))
    return rows


def validate(record: Record) -> None:
    """Raise InvalidArgumentError if *record* cannot be indexed faithfully."""
    doc = record.document
    if doc.kind not in KINDS:
        raise InvalidArgumentError(f"record {doc.id}: unknown kind {doc.kind!r}")
    if not isinstance(doc.id, int) or isinstance(doc.id, bool):
        raise InvalidArgumentError(f"{doc.kind} record id must be an int, got {doc.id!r}")
    allowed = s.KIND_FIELDS[doc.kind]
    for name in doc.fields:
        if name not in allowed:
            raise InvalidArgumentError(
                f"{doc.kind} {doc.id}: field {name!r} is not indexed for this kind "
                f"(indexed fields: {', '.join(allowed)})"
            )


def to_tantivy(record: Record, stored: bytes) -> tantivy.Document:
    """The Tantivy document of *record* (call validate() first), *stored* as its record
    (``encode``, compressed by ``record_dictionary.compress``).
    """
    doc = record.document
    out = tantivy.Document()
    out.add_text(s.KEY, record_key(doc.kind, doc.id))
    out.add_text(s.KIND, doc.kind)
    out.add_integer(s.ID, doc.id)
    out.add_bytes(s.RECORD, stored)
    _add_filters(out, record)
    return out


def _add_filters(out: tantivy.Document, record: Record) -> None:
    if _is_int(record.project_id):
        out.add_integer(s.PROJECT_ID, record.project_id)
    attributes = record.attributes
    for name in (s.STATUS_ID, s.TYPE_ID, s.ASSIGNEE_ID, s.AUTHOR_ID):
        value = attributes.get(name)
        if _is_int(value):
            out.add_integer(name, value)
    closed = attributes.get(s.IS_CLOSED)
    if isinstance(closed, bool):
        out.add_boolean(s.IS_CLOSED, closed)
    out.add_integer(s.UPDATED_TS, updated_value(record.updated_at))


def filter_values(record: Record) -> tuple[int, ...]:
    """The record's values for ``filters.FILTER_COLUMNS`` (the analysis store's columns),
    the same values ``_add_filters`` gives Tantivy; MISSING where Tantivy gets none."""
    attributes = record.attributes
    ints = [
        record.project_id,
        *(attributes.get(n) for n in (s.STATUS_ID, s.TYPE_ID, s.ASSIGNEE_ID, s.AUTHOR_ID)),
    ]
    closed = attributes.get(s.IS_CLOSED)
    return (
        *(value if _is_int(value) else s.MISSING for value in ints),
        int(closed) if isinstance(closed, bool) else s.MISSING,
        updated_value(record.updated_at),
    )


def _is_int(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def encode(record: Record) -> bytes:
    """The stored JSON form of *record*."""
    doc = record.document
    payload: dict[str, Any] = {
        "kind": doc.kind,
        "id": doc.id,
        "fields": {name: [[v.text, v.ref] for v in values] for name, values in doc.fields.items()},
        "title": record.title,
        "project_id": record.project_id,
        "project_name": record.project_name,
        "updated_at": record.updated_at.isoformat() if record.updated_at else None,
        "attributes": dict(record.attributes),
    }
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def decode(data: bytes) -> Record:
    """The Record stored as *data*; IndexUnavailableError if it is not one."""
    try:
        # Decoded first: json.loads on bytes would sniff the encoding of every record.
        payload = json.loads(data.decode("utf-8", "surrogatepass"))
        kind = _kind(payload["kind"])
        fields: dict[str, tuple[FieldValue, ...]] = {
            name: tuple([FieldValue(text, ref) for text, ref in values])  # no generator: faster
            for name, values in payload["fields"].items()
        }
        updated = payload["updated_at"]
        attributes: Mapping[str, AttributeValue] = payload["attributes"]
        return Record(
            document=SearchDocument(kind=kind, id=int(payload["id"]), fields=fields),
            title=payload["title"],
            project_id=payload["project_id"],
            project_name=payload["project_name"],
            updated_at=datetime.fromisoformat(updated) if updated else None,
            attributes=attributes,
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise IndexUnavailableError(f"stored record is malformed: {exc}") from exc


def _kind(value: object) -> Kind:
    for kind in KINDS:
        if value == kind:
            return kind
    raise ValueError(f"unknown kind {value!r}")
