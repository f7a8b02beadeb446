"""Pure, I/O-free text matching: normalization, scoring, ranking, snippets, relaxation."""

from opindex.search.analysis import AnalyzedDocument, AnalyzedText, analyze, analyze_document
from opindex.search.document import KINDS, FieldValue, Kind, SearchDocument
from opindex.search.fields import (
    DEEP_FIELDS,
    FIELD_SPECS,
    SHALLOW_FIELDS,
    field_names,
    rank_documents,
)
from opindex.search.match import FieldScore, score_field
from opindex.search.query import (
    Alternative,
    MatchMode,
    Query,
    Term,
    alternative_score,
    parse_query,
    render_query,
)
from opindex.search.rank import FieldMatch, FieldSpec, Ranked, rank_records
from opindex.search.relax import (
    RelaxationOutcome,
    concept_expansion,
    drop_term,
    relaxation_plan,
    search_with_relaxation,
    search_with_relaxation_async,
    wildcard_suffix,
)
from opindex.search.score import bounded_levenshtein, score_token
from opindex.search.snippet import extract_snippet
from opindex.search.thesaurus import BUILTIN_THESAURUS
from opindex.search.tokenize import Token, normalize_text, normalize_token, tokenize

__all__ = [
    "BUILTIN_THESAURUS",
    "DEEP_FIELDS",
    "FIELD_SPECS",
    "KINDS",
    "SHALLOW_FIELDS",
    "Alternative",
    "AnalyzedDocument",
    "AnalyzedText",
    "FieldMatch",
    "FieldScore",
    "FieldSpec",
    "FieldValue",
    "Kind",
    "MatchMode",
    "Query",
    "Ranked",
    "RelaxationOutcome",
    "SearchDocument",
    "Term",
    "Token",
    "alternative_score",
    "analyze",
    "analyze_document",
    "bounded_levenshtein",
    "concept_expansion",
    "drop_term",
    "extract_snippet",
    "field_names",
    "normalize_text",
    "normalize_token",
    "parse_query",
    "rank_documents",
    "rank_records",
    "relaxation_plan",
    "render_query",
    "score_field",
    "score_token",
    "search_with_relaxation",
    "search_with_relaxation_async",
    "tokenize",
    "wildcard_suffix",
]
