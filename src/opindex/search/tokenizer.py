"""The one normalizer and tokenizer shared by queries, live fields and the index.

Indexes store these tokens: any change to normalization must bump
``opindex.index.schema.SCHEMA_VERSION`` so existing indexes are rebuilt, not misread.
"""

from __future__ import annotations

import re
import unicodedata
from typing import NamedTuple

# A candidate run starts with a letter/digit and continues over letters/digits and over
# non-ASCII characters that are neither word characters nor whitespace. Those "gaps" are
# then checked one by one: a gap made only of combining marks (Unicode category M: accents,
# Arabic harakat, Hebrew points, Indic vowel signs, variation selectors) stays inside the
# token, so decomposed "Mu\u0308ller" and vocalized Arabic are one token like their plain
# forms; any other gap (dash, emoji, symbol) splits the run. Python's `re` has no \p{M},
# so the check is done in Python, and only for runs that contain a gap at all.
_RUN_RE = re.compile(r"[^\W_]+(?:[^\x00-\x7f\w\s]+[^\W_]*)*")
_GAP_RE = re.compile(r"[^\x00-\x7f\w\s]+")
RUN_PATTERN = _RUN_RE
"""Candidate runs (see above): every token lies inside one, and each is tokenized alone."""


# Letters that NFKD leaves whole (they are letters of their own, not letter + mark) but
# that people routinely type without: "Ørsted" is searched as "orsted", "Łukasz" as
# "lukasz", "Straße" as "strasse". Applied after lowercasing.
_FOLD = str.maketrans(
    {
        "ø": "o",
        "ł": "l",
        "đ": "d",
        "ð": "d",
        "ħ": "h",
        "ı": "i",
        "ŧ": "t",
        "ß": "ss",
        "æ": "ae",
        "œ": "oe",
        "þ": "th",
    }
)


class Token(NamedTuple):
    """A normalized token and the [start, end) offsets of its run in the original text."""

    text: str
    start: int
    end: int


def normalize_token(raw: str) -> str:
    """NFKD, strip combining marks, lowercase, fold letters like ø/ł/ß; keep letters/digits."""
    if raw.isascii():
        return raw.lower()
    decomposed = unicodedata.normalize("NFKD", raw)
    return "".join(
        ch
        for ch in decomposed.lower().translate(_FOLD)
        if not unicodedata.combining(ch) and ch.isalnum()
    )


def _is_marks(gap: str) -> bool:
    return all(unicodedata.category(ch).startswith("M") for ch in gap)


def _runs(text: str) -> list[tuple[int, int]]:
    """[start, end) spans of the letter/digit runs of *text* (marks kept inside)."""
    spans: list[tuple[int, int]] = []
    for match in _RUN_RE.finditer(text):
        start, end = match.span()
        run = match.group()
        if run.isalnum():
            spans.append((start, end))
            continue
        piece_start: int | None = start
        for gap in _GAP_RE.finditer(run):
            if _is_marks(gap.group()):
                continue
            if piece_start is not None and piece_start < start + gap.start():
                spans.append((piece_start, start + gap.start()))
            piece_start = start + gap.end() if gap.end() < len(run) else None
        if piece_start is not None and piece_start < end:
            spans.append((piece_start, end))
    return spans


def tokenize(text: str) -> list[Token]:
    """Split *text* into normalized tokens with offsets into *text* itself."""
    tokens: list[Token] = []
    for start, end in _runs(text):
        normalized = normalize_token(text[start:end])
        if normalized:
            tokens.append(Token(normalized, start, end))
    return tokens


def token_texts(text: str) -> list[str]:
    """The normalized token strings of *text*, in order (no offsets)."""
    if text.isascii():
        return [match.group().lower() for match in _RUN_RE.finditer(text)]
    out: list[str] = []
    for start, end in _runs(text):
        normalized = normalize_token(text[start:end])
        if normalized:
            out.append(normalized)
    return out


def normalize_text(text: str) -> str:
    """The normalized form of *text*: its tokens joined by single spaces."""
    return " ".join(token_texts(text))
