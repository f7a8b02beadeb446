"""Containment-mode candidates: records whose raw text could hold a substring.

Exact match mode (and fuzzy queries under 3 characters) scores a case-insensitive
substring of a raw field value. Tokens of the needle narrow the candidates down through
the vocabulary of the ``all`` field; a needle without letters or digits needs a scan.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from typing import Final

import tantivy

from opindex.index import schema as s
from opindex.index.vocabulary import Anchor, Vocabulary
from opindex.records import Record
from opindex.search import Query, tokenize

# Vocabulary terms listed in one term-set clause at most; beyond that, the clause matches
# every document and the re-rank decides.
MAX_PIECE_TERMS: Final = 20_000

VocabularySource = Callable[[], Vocabulary]


def term_set_query(schema: tantivy.Schema, field: str, terms: list[str] | None) -> tantivy.Query:
    """Documents with one of *terms* in *field*; None means "too many to list": all."""
    if terms is None:
        return tantivy.Query.all_query()
    if not terms:
        return tantivy.Query.empty_query()
    return tantivy.Query.term_set_query(schema, field, terms)


def containment_needle(query: Query) -> str:
    """The text a containment query looks for (as opindex.search.match reads it)."""
    return query.text if query.match_mode == "exact" else query.text.strip()


def containment_pieces(text: str) -> list[tuple[str, Anchor]]:
    """The tokens of a raw substring query, each with where it must sit inside a token.

    If the raw (case-insensitive) text of a record contains *text*, every token run of
    *text* lies inside one token run of the record: a run preceded by a separator in
    *text* starts a record token, a run followed by something ends one, and a run with
    both is a whole record token. Normalization works character by character, so the same
    holds for normalized tokens (casefold on both sides absorbs the final-sigma rule of
    lower() and the ß/ss pair).
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
        term_set_query(schema, s.ALL, vocab.find(piece, anchor, limit=MAX_PIECE_TERMS))
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
