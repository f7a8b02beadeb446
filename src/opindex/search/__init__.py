"""Pure, I/O-free text matching: normalization, scoring, ranking, snippets, relaxation."""

from opindex.search.analysis import (
    AnalyzedDocument,
    AnalyzedText,
    analyze,
    analyze_document,
    fast_token_texts,
)
from opindex.search.best_values import FieldBest, RecordBests, field_bests
from opindex.search.document import (
    KIND_KEYS,
    KIND_LABELS,
    KINDS,
    FieldValue,
    Kind,
    SearchDocument,
)
from opindex.search.fields import (
    DEEP_FIELDS,
    FIELD_SPECS,
    SHALLOW_FIELDS,
    describe_documents,
    field_names,
    rank_documents,
    rank_documents_counted,
)
from opindex.search.match import (
    ContainmentMatcher,
    FieldScore,
    QueryMatcher,
    match_spans,
    round_score,
    score_field,
)
from opindex.search.packed import DTYPE as PACKED_DTYPE
from opindex.search.packed import LIMIT as PACKED_LIMIT
from opindex.search.packed import Packed24, packed_size
from opindex.search.query import (
    Alternative,
    MatchMode,
    Query,
    Term,
    alternative_score,
    parse_query,
    render_query,
    validate_match_mode,
)
from opindex.search.rank import DEFAULT_MIN_SCORE, FieldMatch, FieldSpec, Ranked, rank_records
from opindex.search.relax import (
    RelaxationOutcome,
    Strategy,
    concept_expansion,
    drop_term,
    relaxation_plan,
    search_with_relaxation,
    search_with_relaxation_async,
    wildcard_suffix,
)
from opindex.search.score import bounded_levenshtein, score_token
from opindex.search.snippet import extract_snippet
from opindex.search.sorted_sets import expand_ranges, unique_sorted
from opindex.search.thesaurus import BUILTIN_THESAURUS
from opindex.search.token_index import TokenIndex, lookup_all, term_matches
from opindex.search.token_rank import TokenRank
from opindex.search.tokenizer import Token, normalize_text, normalize_token, token_texts, tokenize
from opindex.search.top_records import top_records, top_rounded
from opindex.search.trigram_postings import (
    MAX_SLICE_TOKENS,
    STORED_ARRAYS,
    index_arrays,
    lists_bounded,
    stored_lists,
    token_bounds,
)
from opindex.search.vector_rank import (
    TermMatches,
    ValueTable,
    gather,
    score_table,
    table_from_arrays,
    value_tokens,
)

__all__ = [
    "BUILTIN_THESAURUS",
    "DEEP_FIELDS",
    "DEFAULT_MIN_SCORE",
    "FIELD_SPECS",
    "KINDS",
    "KIND_KEYS",
    "KIND_LABELS",
    "MAX_SLICE_TOKENS",
    "PACKED_DTYPE",
    "PACKED_LIMIT",
    "SHALLOW_FIELDS",
    "STORED_ARRAYS",
    "Alternative",
    "AnalyzedDocument",
    "AnalyzedText",
    "ContainmentMatcher",
    "FieldBest",
    "FieldMatch",
    "FieldScore",
    "FieldSpec",
    "FieldValue",
    "Kind",
    "MatchMode",
    "Packed24",
    "Query",
    "QueryMatcher",
    "Ranked",
    "RecordBests",
    "RelaxationOutcome",
    "SearchDocument",
    "Strategy",
    "Term",
    "TermMatches",
    "Token",
    "TokenIndex",
    "TokenRank",
    "ValueTable",
    "alternative_score",
    "analyze",
    "analyze_document",
    "bounded_levenshtein",
    "concept_expansion",
    "describe_documents",
    "drop_term",
    "expand_ranges",
    "extract_snippet",
    "fast_token_texts",
    "field_bests",
    "field_names",
    "gather",
    "index_arrays",
    "lists_bounded",
    "lookup_all",
    "match_spans",
    "normalize_text",
    "normalize_token",
    "packed_size",
    "parse_query",
    "rank_documents",
    "rank_documents_counted",
    "rank_records",
    "relaxation_plan",
    "render_query",
    "round_score",
    "score_field",
    "score_table",
    "score_token",
    "search_with_relaxation",
    "search_with_relaxation_async",
    "stored_lists",
    "table_from_arrays",
    "term_matches",
    "token_bounds",
    "token_texts",
    "tokenize",
    "top_records",
    "top_rounded",
    "unique_sorted",
    "validate_match_mode",
    "value_tokens",
    "wildcard_suffix",
]
