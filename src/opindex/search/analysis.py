"""Text analysed once (tokens, distinct set), so a store can tokenize at write time."""

from __future__ import annotations

import codecs
import re
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from opindex.search.document import Kind, SearchDocument
from opindex.search.tokenizer import Token, normalize_token, token_texts, tokenize

_FOLDED_BELOW = 0x250
"""Latin-1 Supplement, Latin Extended-A and -B: the letters ``_latin_folds`` covers."""


def _latin_folds() -> list[str]:
    """A ``str.translate`` table replacing each non-ASCII Latin letter (or digit-like
    sign) that normalizes, alone, to ASCII letters/digits by that: "é" -> "e",
    "Ø" -> "o", "ß" -> "ss", "½" -> "12"; every other character maps to itself.

    Normalizing such a character does not depend on its neighbours (its decomposition
    starts with a base character, and none is Greek, whose final sigma lowercases by
    context), so replacing each one by its normalized form and tokenizing the now ASCII
    text gives the tokens of the original. Word characters stay word characters, so run
    boundaries do not move. A list, not a dict: ``translate`` looks it up much faster.
    """
    word = re.compile(r"[^\W_]")
    table: list[str] = []
    for code in range(_FOLDED_BELOW):
        character = chr(code)
        folded = normalize_token(character)
        fold = code >= 0x80 and word.match(character) and folded.isascii() and folded.isalnum()
        table.append(folded if fold else character)
    return table


_LATIN_FOLDS = _latin_folds()
_BEYOND_FOLDS = re.compile(f"[^\\x00-\\u{_FOLDED_BELOW - 1:04x}]")
_FOLD_ERRORS = "opindex-fold-latin"


def _fold_run(error: UnicodeError) -> tuple[str, int]:
    """Codec error handler: the folds of a run of non-ASCII characters (a fold that is
    not ASCII makes the encoder raise)."""
    assert isinstance(error, UnicodeEncodeError)
    run = error.object[error.start : error.end]
    return "".join([_LATIN_FOLDS[ord(character)] for character in run]), error.end


codecs.register_error(_FOLD_ERRORS, _fold_run)


LONG_TEXT = 2_048
"""From this many characters ``fold_latin`` folds a text in one numpy pass over its code
points; below it the codec's error handler costs less (2026-12-07, thread CPU per text:
40 characters 0.9 against 12.7 µs, 1,000 characters 17.8 against 17.6 µs, 4,000
characters 67.9 against 31.1 µs)."""

_SINGLE_SENTINEL = 0xFF


def _single_folds() -> tuple[npt.NDArray[np.uint8], dict[int, str]]:
    """For each code point below ``_FOLDED_BELOW``: the one ASCII character it folds to
    (itself when ASCII), else ``_SINGLE_SENTINEL``; and the folds of several characters."""
    single = np.full(_FOLDED_BELOW, _SINGLE_SENTINEL, dtype=np.uint8)
    several: dict[int, str] = {}
    for code, fold in enumerate(_LATIN_FOLDS):
        if code < 0x80:
            single[code] = code
        elif fold != chr(code) and len(fold) == 1:
            single[code] = ord(fold)
        elif fold != chr(code):
            several[code] = fold
    return single, several


_SINGLE_FOLDS, _SEVERAL_FOLDS = _single_folds()

Expansions = list[tuple[int, int]]
"""Where a folded text is longer (``latin_expansions``)."""


def _fold_short(text: str) -> str | None:
    if _BEYOND_FOLDS.search(text):
        return None
    try:
        return text.encode("ascii", _FOLD_ERRORS).decode("ascii")
    except UnicodeEncodeError:  # a character that folds to itself (a symbol): not ASCII
        return None


def _fold_long(text: str) -> tuple[str, Expansions] | None:
    """``folded_latin`` in one numpy pass: each code point mapped to its one-character
    fold, the few that fold to several spliced in."""
    codes = np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32)
    if len(codes) and int(codes.max()) >= _FOLDED_BELOW:
        return None
    mapped = _SINGLE_FOLDS[codes]
    pieces: list[str] = []
    expansions: Expansions = []
    start, added = 0, 0
    for at in np.flatnonzero(mapped == _SINGLE_SENTINEL).tolist():
        fold = _SEVERAL_FOLDS.get(int(codes[at]))
        if fold is None:  # a character that folds to itself (a symbol): not ASCII
            return None
        pieces += [mapped[start:at].tobytes().decode("ascii"), fold]
        expansions.append((at + added, len(fold) - 1))
        added += len(fold) - 1
        start = at + 1
    pieces.append(mapped[start:].tobytes().decode("ascii"))
    return "".join(pieces), expansions


def fold_latin(text: str) -> str | None:
    """*text* with its Latin letters folded to ASCII (see ``_latin_folds``), or None when
    it holds other non-ASCII characters. ``token_texts`` of the result equals that of
    *text*; when both have the same length, every offset is unchanged too.

    Equal to ``text.translate(_LATIN_FOLDS)`` when that is ASCII; the ASCII encoder
    copies the ASCII stretches in C and calls ``_fold_run`` on the others only, and a
    long text is folded by numpy (``LONG_TEXT``)."""
    if text.isascii():
        return text
    if len(text) >= LONG_TEXT:
        found = _fold_long(text)
        return None if found is None else found[0]
    return _fold_short(text)


def folded_latin(text: str) -> tuple[str, Expansions] | None:
    """``fold_latin(text)`` and, where it is longer than *text*, ``latin_expansions(text)``
    (else no expansions), or None."""
    if text.isascii():
        return text, []
    if len(text) >= LONG_TEXT:
        return _fold_long(text)
    folded = _fold_short(text)
    if folded is None:
        return None
    return folded, latin_expansions(text) if len(folded) != len(text) else []


_NON_ASCII = re.compile(r"[^\x00-\x7f]")


def latin_expansions(text: str) -> Expansions:
    """Where ``fold_latin(text)`` (not None) is longer than *text*: each character folded
    to several ("ß" -> "ss", "½" -> "12") as (its position in the folded text, the
    characters it adds), in order. A folded offset maps back by subtracting what the
    characters before it added."""
    found: Expansions = []
    added = 0
    for match in _NON_ASCII.finditer(text):
        extra = len(_LATIN_FOLDS[ord(match.group())]) - 1
        if extra:
            found.append((match.start() + added, extra))
            added += extra
    return found


_ASCII_TOKEN = re.compile(r"[a-z0-9]+")
# A letter/digit run, possibly with non-ASCII non-word characters inside (as the
# tokenizer finds them); such mixed runs go to token_texts.
_RUN = re.compile(r"[^\W_]+(?:[^\x00-\x7f\w\s]+[^\W_]*)*")


def fast_token_texts(text: str) -> list[str]:
    """Exactly ``token_texts(text)``, computed faster for the common cases."""
    if not text.isascii():
        folded = fold_latin(text)
        if folded is not None:  # only Latin letters with diacritics: tokenize as ASCII
            text = folded
    if text.isascii():
        return _ASCII_TOKEN.findall(text.lower())
    tokens: list[str] = []
    for run in _RUN.findall(text):
        if run.isascii():
            tokens.append(run.lower())
        elif run.isalnum():
            normalized = normalize_token(run)
            if normalized:
                tokens.append(normalized)
        else:  # a run holding marks or symbols: the tokenizer decides how it splits
            return token_texts(text)
    return tokens


class AnalyzedText:
    """A field value with its normalized tokens and their distinct set.

    Build it with ``AnalyzedText(text)``, or, when the tokens were stored at write time,
    ``AnalyzedText(text, tokens)`` where *tokens* must equal ``token_texts(text)``.
    Offsets are never stored: ``spans()`` re-tokenizes the text, which only happens for
    values that end up in a returned result (for snippets).
    """

    __slots__ = ("_joined", "distinct", "text", "tokens")

    def __init__(self, text: str, tokens: Sequence[str] | None = None) -> None:
        self.text = text
        # Interned, so equal tokens of different values are one object: set operations
        # across values then compare by identity (several times faster than by content).
        self.tokens: tuple[str, ...] = tuple(
            map(sys.intern, fast_token_texts(text) if tokens is None else tokens)
        )
        self.distinct: frozenset[str] = frozenset(self.tokens)
        self._joined: str | None = None

    @property
    def joined(self) -> str:
        """The tokens joined by single spaces, padded with one space on each side."""
        if self._joined is None:
            self._joined = " " + " ".join(self.tokens) + " "
        return self._joined

    def contains_sequence(self, tokens: Sequence[str]) -> bool:
        """True if *tokens* occur in this text as consecutive tokens."""
        if not tokens or not self.distinct.issuperset(tokens):
            return False
        return (" " + " ".join(tokens) + " ") in self.joined

    def spans(self) -> list[Token]:
        """The tokens with their offsets into ``text``."""
        return tokenize(self.text)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, AnalyzedText):
            return NotImplemented
        return self.text == other.text and self.tokens == other.tokens

    def __hash__(self) -> int:
        return hash(self.text)

    def __repr__(self) -> str:
        preview = self.text if len(self.text) <= 40 else self.text[:37] + "..."
        return f"AnalyzedText({preview!r}, {len(self.tokens)} tokens)"


def analyze(text: str) -> AnalyzedText:
    """Analyse *text* (tokenize and index its distinct tokens)."""
    return AnalyzedText(text)


@dataclass(frozen=True, slots=True)
class AnalyzedDocument:
    """A SearchDocument whose field values were analysed once, for repeated ranking."""

    document: SearchDocument
    fields: Mapping[str, tuple[AnalyzedText, ...]]

    @property
    def id(self) -> int:
        """The record id of the underlying document."""
        return self.document.id

    @property
    def kind(self) -> Kind:
        """The record kind of the underlying document."""
        return self.document.kind


def analyze_document(document: SearchDocument) -> AnalyzedDocument:
    """Analyse every field value of *document*."""
    fields = {
        name: tuple(AnalyzedText(value.text) for value in values)
        for name, values in document.fields.items()
    }
    return AnalyzedDocument(document=document, fields=fields)
