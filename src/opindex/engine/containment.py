"""Containment-mode candidates: records whose raw text could hold a substring.

Exact match mode (and fuzzy queries under 3 characters) scores a case-insensitive
substring of a raw field value. Tokens of the needle narrow the candidates down through
the analysis store's vocabulary and postings; a needle without letters or digits needs a
scan of the raw text.
"""

from __future__ import annotations

import unicodedata
from typing import Final

import numpy as np
import numpy.typing as npt

from opindex.engine.vocabulary import Anchor, Vocabulary
from opindex.records import Record
from opindex.search import Query, tokenize

MAX_PIECE_TERMS: Final = 20_000
"""Vocabulary tokens one piece of a needle may name; past that, the piece narrows nothing
(it would hold about every record) and the re-rank decides."""


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
        pieces.append((token.text, anchor))
    return pieces


def containment_tokens(
    vocabulary: Vocabulary, needle: str
) -> list[npt.NDArray[np.int64] | None] | None:
    """For each piece of *needle*, the vocabulary tokens (ids) a record holding *needle*
    must hold one of (None: a piece too common to narrow anything). None when no piece
    can be looked up (no letters or digits): only a scan of the raw text can tell."""
    pieces = containment_pieces(needle)
    if not pieces:
        return None
    return [vocabulary.find_ids(piece, anchor, limit=MAX_PIECE_TERMS) for piece, anchor in pieces]


def raw_contains(record: Record, needle: str) -> bool:
    """Case-insensitive substring test on the raw field values of *record*."""
    lowered, folded = needle.lower(), needle.casefold()
    texts = [record.title]
    for values in record.document.fields.values():
        texts.extend(value.text for value in values)
    return any(lowered in t.lower() or folded in t.casefold() for t in texts)
