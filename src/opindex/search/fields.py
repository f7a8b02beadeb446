"""Field specs per record kind, and the one function both search paths score with."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from types import MappingProxyType

from opindex.errors import InvalidArgumentError
from opindex.search.analysis import AnalyzedDocument, AnalyzedText, analyze_document
from opindex.search.document import KINDS, Kind, SearchDocument
from opindex.search.match_details import RecordBests
from opindex.search.query import MatchMode, Query, parse_query
from opindex.search.rank import (
    DEFAULT_MIN_SCORE,
    FieldSpec,
    Ranked,
    describe_records,
    rank_records_counted,
)

# (field name, weight, shallow?) per kind. Shallow fields come with a list response; deep
# fields need an extra fetch on the live path. All fields of a kind share one spec list
# normalised by the kind's max weight (3.0), so final = max(shallow, deep) falls out: an
# unenriched record simply has no deep fields.
_FIELD_TABLE: Mapping[Kind, tuple[tuple[str, float, bool], ...]] = {
    "work_package": (
        ("subject", 3.0, True),
        ("description", 1.0, False),
        ("comments", 1.0, False),  # FieldValue.ref = activity id
        ("attachments", 1.0, False),  # FieldValue.ref = attachment id
    ),
    "wiki_page": (
        ("title", 3.0, True),
        ("text", 1.0, True),  # one pass: the page body comes with the page
        ("attachments", 1.0, False),
    ),
    "meeting": (
        ("title", 3.0, True),
        ("location", 1.0, True),
        ("project", 0.5, True),
        ("author", 0.5, True),
        ("agenda_title", 2.0, False),  # FieldValue.ref = agenda item id
        ("agenda_notes", 1.5, False),  # FieldValue.ref = agenda item id
        ("outcome_notes", 1.5, False),  # FieldValue.ref = agenda item id
        ("participants", 1.0, False),
        ("attachments", 1.0, False),
    ),
    # The kinds below are read whole from their list endpoints: every field is shallow
    # except the text of attached files, which needs a download.
    "news": (
        ("title", 3.0, True),
        ("summary", 2.0, True),
        ("description", 1.0, True),
    ),
    "document": (
        ("title", 3.0, True),
        ("description", 1.0, True),
        ("attachments", 1.0, False),
    ),
    "project": (
        ("name", 3.0, True),
        ("identifier", 2.0, True),
        ("description", 1.0, True),
        ("status_explanation", 1.0, True),
    ),
    "version": (
        ("name", 3.0, True),
        ("description", 1.0, True),
    ),
    # An attached file on its own: its name, its description, and its text (deep).
    "attachment": (
        ("file_name", 3.0, True),
        ("description", 1.0, True),
        ("content", 1.0, False),
    ),
}


def _document_extractor(name: str) -> Callable[[SearchDocument], tuple[str, ...]]:
    def extract(document: SearchDocument) -> tuple[str, ...]:
        return tuple(value.text for value in document.fields.get(name, ()))

    return extract


def _analyzed_extractor(name: str) -> Callable[[AnalyzedDocument], tuple[AnalyzedText, ...]]:
    def extract(document: AnalyzedDocument) -> tuple[AnalyzedText, ...]:
        return document.fields.get(name, ())

    return extract


FIELD_SPECS: Mapping[Kind, tuple[FieldSpec[SearchDocument], ...]] = MappingProxyType(
    {
        kind: tuple(FieldSpec(name, weight, _document_extractor(name)) for name, weight, _ in rows)
        for kind, rows in _FIELD_TABLE.items()
    }
)
"""Every searchable field of each kind with its weight, over SearchDocument."""

_ANALYZED_SPECS: Mapping[Kind, tuple[FieldSpec[AnalyzedDocument], ...]] = {
    kind: tuple(FieldSpec(name, weight, _analyzed_extractor(name)) for name, weight, _ in rows)
    for kind, rows in _FIELD_TABLE.items()
}

SHALLOW_FIELDS: Mapping[Kind, frozenset[str]] = MappingProxyType(
    {
        kind: frozenset(name for name, _, shallow in rows if shallow)
        for kind, rows in _FIELD_TABLE.items()
    }
)
"""Fields available without enrichment (list responses); the rest are deep."""

DEEP_FIELDS: Mapping[Kind, frozenset[str]] = MappingProxyType(
    {
        kind: frozenset(name for name, _, shallow in rows if not shallow)
        for kind, rows in _FIELD_TABLE.items()
    }
)
"""Fields the live path only has after enriching a record."""


def field_names(kind: Kind) -> tuple[str, ...]:
    """The field names of *kind*, in declaration order."""
    return tuple(name for name, _, _ in _FIELD_TABLE[kind])


def _check_kind(kind: str) -> Kind:
    for known in KINDS:
        if kind == known:
            return known
    raise InvalidArgumentError(f"unknown record kind {kind!r}; expected one of: {KINDS}")


def rank_documents(
    documents: Iterable[SearchDocument | AnalyzedDocument],
    query: str | Query,
    kind: Kind,
    *,
    min_score: float = DEFAULT_MIN_SCORE,
    limit: int | None = None,
    match_mode: MatchMode = "fuzzy",
) -> list[Ranked[SearchDocument]]:
    """Rank documents of one *kind*; the live path and the index path both call this.

    Pass AnalyzedDocuments (``analyze_document``) to reuse tokenization across queries;
    plain SearchDocuments are analysed on the fly. Fields missing from a document (deep
    content not read) simply do not match. Raises InvalidArgumentError for an unknown kind
    or a document of another kind.
    """
    ranked, _ = rank_documents_counted(
        documents, query, kind, min_score=min_score, limit=limit, match_mode=match_mode
    )
    return ranked


def rank_documents_counted(
    documents: Iterable[SearchDocument | AnalyzedDocument],
    query: str | Query,
    kind: Kind,
    *,
    min_score: float = DEFAULT_MIN_SCORE,
    limit: int | None = None,
    match_mode: MatchMode = "fuzzy",
) -> tuple[list[Ranked[SearchDocument]], int]:
    """``rank_documents``, and how many documents it would return without *limit*
    (counted in the same scoring pass)."""
    checked = _check_kind(kind)
    parsed = query if isinstance(query, Query) else parse_query(query, match_mode)
    if parsed.containment or not parsed.terms:  # raw text is all these need
        raw = [_document(document, checked) for document in documents]
        plain, passing = rank_records_counted(
            raw, parsed, FIELD_SPECS[checked], min_score=min_score, limit=limit
        )
        return list(plain), passing
    ranked, passing = rank_records_counted(
        _analyzed_documents(documents, checked),
        parsed,
        _ANALYZED_SPECS[checked],
        min_score=min_score,
        limit=limit,
        match_mode=match_mode,
    )
    return [Ranked(item.record.document, item.score, item.matches) for item in ranked], passing


def _document(document: SearchDocument | AnalyzedDocument, kind: Kind) -> SearchDocument:
    """The SearchDocument of *document*; InvalidArgumentError for another kind."""
    if document.kind != kind:
        raise InvalidArgumentError(f"document {document.id} is a {document.kind}, not a {kind}")
    return document if isinstance(document, SearchDocument) else document.document


def _analyzed_documents(
    documents: Iterable[SearchDocument | AnalyzedDocument], kind: Kind
) -> list[AnalyzedDocument]:
    """*documents* analysed where they are not yet; InvalidArgumentError for another kind."""
    analyzed: list[AnalyzedDocument] = []
    for document in documents:
        if document.kind != kind:
            raise InvalidArgumentError(f"document {document.id} is a {document.kind}, not a {kind}")
        if isinstance(document, SearchDocument):
            analyzed.append(analyze_document(document))
        else:
            analyzed.append(document)
    return analyzed


def describe_documents(
    entries: Sequence[tuple[SearchDocument, float, RecordBests]],
    kind: Kind,
    token_text: Callable[[int], str],
) -> list[Ranked[SearchDocument]]:
    """``rank_documents``' answer for documents of *kind* scored by the vectorized scorer
    (``describe_records``): their scores and fields' best values given, in that order."""
    checked = _check_kind(kind)
    for document, _, _ in entries:
        _document(document, checked)
    return describe_records(entries, FIELD_SPECS[checked], token_text)
