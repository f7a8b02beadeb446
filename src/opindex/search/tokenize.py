"""The one normalizer and tokenizer shared by queries, live fields and the index."""

from __future__ import annotations

import re
import unicodedata
from typing import NamedTuple

# A token is a run of Unicode letters/digits; combining marks stay inside the run so that
# decomposed input ("Mu\u0308ller") is one token, like its composed form.
_TOKEN_RE = re.compile(
    r"[^\W_](?:[^\W_]|[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f])*"
)


class Token(NamedTuple):
    """A normalized token and the [start, end) offsets of its run in the original text."""

    text: str
    start: int
    end: int


def normalize_token(raw: str) -> str:
    """NFKD, strip combining marks, lowercase; drop anything that is not a letter/digit."""
    if raw.isascii():
        return raw.lower()
    decomposed = unicodedata.normalize("NFKD", raw)
    return "".join(
        ch for ch in decomposed.lower() if not unicodedata.combining(ch) and ch.isalnum()
    )


def tokenize(text: str) -> list[Token]:
    """Split *text* into normalized tokens with offsets into *text* itself."""
    tokens: list[Token] = []
    for match in _TOKEN_RE.finditer(text):
        normalized = normalize_token(match.group())
        if normalized:
            tokens.append(Token(normalized, match.start(), match.end()))
    return tokens


def token_texts(text: str) -> list[str]:
    """The normalized token strings of *text*, in order (no offsets)."""
    out: list[str] = []
    for match in _TOKEN_RE.finditer(text):
        normalized = normalize_token(match.group())
        if normalized:
            out.append(normalized)
    return out


def normalize_text(text: str) -> str:
    """The normalized form of *text*: its tokens joined by single spaces."""
    return " ".join(token_texts(text))
