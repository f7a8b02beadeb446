"""How people type names with diacritics on a plain keyboard: stripped or transliterated."""

from __future__ import annotations

import unicodedata
from typing import Literal

FoldStyle = Literal["strip", "transliterate"]

# Letters NFKD does not decompose, typed as their nearest plain letters.
_PLAIN = str.maketrans(
    {"ß": "ss", "ø": "o", "Ø": "O", "ł": "l", "Ł": "L", "æ": "ae", "Æ": "Ae", "œ": "oe",
     "đ": "d", "ı": "i", "þ": "th"}
)  # fmt: skip
# German and Scandinavian conventions for the same letters.
_TRANSLITERATE = str.maketrans(
    {"ä": "ae", "ö": "oe", "ü": "ue", "Ä": "Ae", "Ö": "Oe", "Ü": "Ue", "å": "aa", "Å": "Aa",
     "ø": "oe", "Ø": "Oe"}
)  # fmt: skip


def has_diacritics(word: str) -> bool:
    """True when *word* has a letter outside ASCII."""
    return not word.isascii()


def fold(word: str, style: FoldStyle = "strip") -> str:
    """*word* as typed without diacritics: ``Müller`` -> ``Muller`` or ``Mueller``."""
    if style == "transliterate":
        word = word.translate(_TRANSLITERATE)
    decomposed = unicodedata.normalize("NFKD", word.translate(_PLAIN))
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))
