"""Candidate retrieval: a Tantivy query returning a superset of what the scorer accepts.

Fuzzy mode, per query term, across every field of the kind (the ``all`` field holds the
union of their tokens), a document is a candidate when one of its tokens t could score
above zero against an alternative q of the term:

==========================  =====================================================
scorer rule                 Tantivy clause on ``all``
==========================  =====================================================
t == q                      term query (its BM25 also ranks the candidates)
len(q) >= 3, t starts q     prefix query on q (len 3) or on q[:4] (len >= 4),
shared prefix >= 4          which also covers every t sharing q's first 4 chars
len(q) >= 4, q in t         term-set query of the vocabulary terms containing q
edit distance within budget fuzzy query, distance 1 (len < 6) or 2 (OSA: superset)
prefix alternative ``q*``   prefix query on q
==========================  =====================================================

Terms are OR-ed: the scorer may accept a record matching only some query terms. Each
term clause scores a constant TERM_WEIGHT, so candidates come out ordered by how many
query terms they match, then by BM25 of the exact tokens; a cap cuts the records that
match the fewest terms first, and CandidateList reports what was cut.

Containment mode (exact match mode, or a fuzzy query shorter than 3 characters) scores a
case-insensitive substring of the raw text; see containment_query().
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Iterable, Sequence
from typing import Final

import tantivy

from opindex.index import schema as s
from opindex.index.generation_index import hit_count
from opindex.index.vocabulary import Anchor, Vocabulary
from opindex.records import Record
from opindex.search.query import Alternative, Query
from opindex.search.score import SHARED_PREFIX_MIN, edit_budget
from opindex.search.tokenize import tokenize

# Candidate score = TERM_WEIGHT x terms matched + PRIMARY_TERM_WEIGHT x terms matched in
# the primary field + BM25 of exact tokens; the weights keep the three levels apart.
TERM_WEIGHT: Final = 100_000.0
PRIMARY_TERM_WEIGHT: Final = 1_000.0
PRIMARY_BOOST: Final = 2.0
# A substring piece matching more vocabulary terms than this is treated as unselective:
# it no longer restricts the candidates (still a superset), and the cost stays bounded.
MAX_PIECE_TERMS: Final = 20_000

VocabularySource = Callable[[], Vocabulary]


class CandidateList(list[Record]):
    """Candidate records, best first, with what the cap left out.

    ``total``: documents matching the candidate query (before the cap).
    ``truncated``: some matching documents were left out by the cap (or, for a query
    without letters or digits, the scan budget ran out).
    ``excluded_max_terms``: in fuzzy mode, the most query terms any left-out document
    matched (None when nothing was left out); a caller can compare it with the minimum
    coverage its scorer needs to decide whether the cap could have lost a result.
    """

    def __init__(
        self,
        records: Iterable[Record] = (),
        *,
        total: int = 0,
        truncated: bool = False,
        excluded_max_terms: int | None = None,
    ) -> None:
        super().__init__(records)
        self.total = total
        self.truncated = truncated
        self.excluded_max_terms = excluded_max_terms


def _prefix(schema: tantivy.Schema, field: str, prefix: str) -> tantivy.Query:
    if not prefix:
        return tantivy.Query.all_query()
    return tantivy.Query.fuzzy_term_query(schema, field, prefix, distance=0, prefix=True)


def _term_set(schema: tantivy.Schema, field: str, terms: list[str] | None) -> tantivy.Query:
    if terms is None:  # unselective piece
        return tantivy.Query.all_query()
    if not terms:
        return tantivy.Query.empty_query()
    return tantivy.Query.term_set_query(schema, field, terms)


def _should(clauses: Sequence[tantivy.Query]) -> tantivy.Query:
    return tantivy.Query.boolean_query([(tantivy.Occur.Should, c) for c in clauses])


def alternative_clauses(
    schema: tantivy.Schema,
    field: str,
    alternative: Alternative,
    containing: list[str] | None,
) -> list[tantivy.Query]:
    """Clauses on *field* matching every document with a token that could score > 0.

    Mirrors opindex.search.score.score_token (and score_prefix_token for ``tok*``);
    *containing* lists the vocabulary terms that contain the token (None: too many).
    """
    token = alternative.token
    if len(token) > s.MAX_TOKEN_CHARS:  # indexed tokens are cut to this length too
        return [_prefix(schema, field, token[: s.MAX_TOKEN_CHARS])]
    length = len(token)
    clauses = [tantivy.Query.term_query(schema, field, token)]
    if length >= SHARED_PREFIX_MIN:  # starts-with q, and the shared-prefix rule
        clauses.append(_prefix(schema, field, token[:SHARED_PREFIX_MIN]))
    elif length >= 3 or alternative.prefix:  # starts-with q (any length for ``tok*``)
        clauses.append(_prefix(schema, field, token))
    budget = edit_budget(token)
    if budget:
        clauses.append(tantivy.Query.fuzzy_term_query(schema, field, token, distance=budget))
    if length >= 4 and (containing is None or containing):  # q in t
        clauses.append(_term_set(schema, field, containing))
    return clauses


def _containing(vocabulary: VocabularySource, alternative: Alternative) -> list[str] | None:
    token = alternative.token
    if len(token) < 4 or len(token) > s.MAX_TOKEN_CHARS:
        return []
    return vocabulary().find(token, "anywhere", limit=MAX_PIECE_TERMS)


def fuzzy_query(
    schema: tantivy.Schema, vocabulary: VocabularySource, query: Query, kind: str
) -> tantivy.Query | None:
    """OR over the query terms; None when the query has no terms.

    Score of a document: TERM_WEIGHT per query term it matches anywhere, plus
    PRIMARY_TERM_WEIGHT per term matched in the kind's primary field (subject / title,
    the heaviest field of the scorer), plus BM25 of the exact query tokens.
    """
    primary = s.text_field_name(s.PRIMARY_FIELD[kind]) if kind in s.PRIMARY_FIELD else None
    scored: list[tantivy.Query] = []
    for term in query.terms:
        anywhere: list[tantivy.Query] = []
        in_primary: list[tantivy.Query] = []
        for alternative in term.alternatives:
            containing = _containing(vocabulary, alternative)
            anywhere.extend(alternative_clauses(schema, s.ALL, alternative, containing))
            if primary is not None:
                in_primary.extend(alternative_clauses(schema, primary, alternative, containing))
            if not alternative.token:
                continue
            scored.append(tantivy.Query.term_query(schema, s.ALL, alternative.token))
            if primary is not None:
                exact = tantivy.Query.term_query(schema, primary, alternative.token)
                scored.append(tantivy.Query.boost_query(exact, PRIMARY_BOOST))
        if anywhere:
            scored.append(tantivy.Query.const_score_query(_should(anywhere), TERM_WEIGHT))
        if in_primary:
            weight = PRIMARY_TERM_WEIGHT
            scored.append(tantivy.Query.const_score_query(_should(in_primary), weight))
    if not scored:
        return None
    return _should(scored)


def containment_pieces(text: str) -> list[tuple[str, Anchor]]:
    """The tokens of a raw substring query, each with where it must sit inside a token.

    If the raw (case-insensitive) text of a record contains *text*, every token run of
    *text* lies inside one token run of the record: a run preceded by something in *text*
    starts a record token, a run followed by something ends one, and a run with both is a
    whole record token. Normalization works character by character, so the same holds
    for normalized tokens (casefold on both sides absorbs the final-sigma rule of lower()).
    """
    pieces: list[tuple[str, Anchor]] = []
    for token in tokenize(text):
        # A combining mark right before the run may continue a longer run in the record
        # ("Mu\u0308ller" holds "\u0308ller"), so only a real separator anchors the start.
        before = text[token.start - 1] if token.start > 0 else ""
        starts = bool(before) and not unicodedata.category(before).startswith("M")
        ends = token.end < len(text)
        anchor: Anchor = (
            "whole" if starts and ends else "start" if starts else "end" if ends else "anywhere"
        )
        if len(token.text) <= s.MAX_TOKEN_CHARS:
            pieces.append((token.text, anchor))
        elif anchor in ("start", "whole"):  # the record token was cut in the index too
            pieces.append((token.text[: s.MAX_TOKEN_CHARS], "start"))
        # else: the piece may sit in the cut-off tail of a record token; no constraint.
    return pieces


def containment_needle(query: Query) -> str:
    """The text a containment query looks for (as opindex.search.match reads it)."""
    return query.text if query.match_mode == "exact" else query.text.strip()


def containment_query(
    schema: tantivy.Schema, vocabulary: VocabularySource, needle: str
) -> tantivy.Query | None:
    """Documents whose tokens could hold the raw substring *needle*.

    None when no piece of *needle* can be looked up (no letters or digits): only a scan
    of the raw text can tell.
    """
    pieces = containment_pieces(needle)
    if not pieces:
        return None
    vocab = vocabulary()
    musts = [
        _term_set(schema, s.ALL, vocab.find(piece, anchor, limit=MAX_PIECE_TERMS))
        for piece, anchor in pieces
    ]
    return tantivy.Query.boolean_query([(tantivy.Occur.Must, q) for q in musts])


def raw_contains(record: Record, needle: str) -> bool:
    """Case-insensitive substring test on the raw field values of *record*."""
    lowered, folded = needle.lower(), needle.casefold()
    texts = [record.title]
    for values in record.document.fields.values():
        texts.extend(value.text for value in values)
    return any(lowered in t.lower() or folded in t.casefold() for t in texts)


Decoder = Callable[[tantivy.DocAddress], Record]


def _must(clauses: Sequence[tantivy.Query]) -> tantivy.Query:
    return tantivy.Query.boolean_query([(tantivy.Occur.Must, c) for c in clauses])


def run_ranked(
    searcher: tantivy.Searcher,
    query: tantivy.Query,
    filters: Sequence[tantivy.Query],
    limit: int,
    decode: Decoder,
) -> CandidateList:
    """Top *limit* documents of a fuzzy_query() by matched terms, then BM25."""
    result = searcher.search(_must([query, *filters]), limit + 1, count=True)
    hits = result.hits
    excluded = int(hits[limit][0] // TERM_WEIGHT) if len(hits) > limit else None
    return CandidateList(
        (decode(address) for _, address in hits[:limit]),
        total=hit_count(result),
        truncated=hit_count(result) > limit,
        excluded_max_terms=excluded,
    )


def run_recent(
    searcher: tantivy.Searcher,
    query: tantivy.Query,
    filters: Sequence[tantivy.Query],
    limit: int,
    decode: Decoder,
) -> CandidateList:
    """The *limit* most recently updated documents matching a containment_query()."""
    result = searcher.search(
        _must([query, *filters]),
        limit,
        count=True,
        order_by_field=s.UPDATED_TS,
        order=tantivy.Order.Desc,
    )
    return CandidateList(
        (decode(address) for _, address in result.hits),
        total=hit_count(result),
        truncated=hit_count(result) > limit,
    )


def run_scan(
    searcher: tantivy.Searcher,
    needle: str,
    filters: Sequence[tantivy.Query],
    limit: int,
    budget: int,
    decode: Decoder,
) -> CandidateList:
    """Records whose raw text contains *needle*, scanning at most *budget* records.

    For substring queries without letters or digits ("--", "#"), which no token can
    narrow down; the most recently updated records are scanned first.
    """
    result = searcher.search(
        _must([tantivy.Query.all_query(), *filters]),
        budget,
        count=True,
        order_by_field=s.UPDATED_TS,
        order=tantivy.Order.Desc,
    )
    found = CandidateList(total=0, truncated=hit_count(result) > budget)
    for _, address in result.hits:
        record = decode(address)
        if raw_contains(record, needle):
            found.total += 1
            if len(found) < limit:
                found.append(record)
            else:
                found.truncated = True
    return found
