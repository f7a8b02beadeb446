"""Realistic single typos: a dropped, swapped, inserted or neighbouring-key letter."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Literal

TypoKind = Literal["drop", "swap", "insert", "substitute"]
TYPO_KINDS: tuple[TypoKind, ...] = ("drop", "swap", "insert", "substitute")
MIN_TYPO_LENGTH = 5
"""Only words of at least this many letters get a typo (BENCHMARKS.md)."""

_ROWS = ("qwertyuiop", "asdfghjkl", "zxcvbnm")
# Horizontal offset of each row on a staggered keyboard, in key widths.
_ROW_OFFSETS = (0.0, 0.25, 0.75)


def _neighbours() -> dict[str, str]:
    positions = {
        key: (row, column + _ROW_OFFSETS[row])
        for row, keys in enumerate(_ROWS)
        for column, key in enumerate(keys)
    }
    result: dict[str, str] = {}
    for key, (row, x) in positions.items():
        near = [
            other
            for other, (other_row, other_x) in positions.items()
            if other != key and abs(other_row - row) <= 1 and abs(other_x - x) <= 1.0
        ]
        result[key] = "".join(sorted(near))
    return result


KEY_NEIGHBOURS: Mapping[str, str] = _neighbours()
"""Letters physically next to each letter on a QWERTY keyboard."""


def _positions(word: str, kind: TypoKind) -> list[int]:
    """Where a typo of *kind* may go: never the first letter, only ASCII letters."""
    lower = word.lower()
    if kind == "swap":
        return [
            i
            for i in range(1, len(word) - 1)
            if lower[i] in KEY_NEIGHBOURS
            and lower[i + 1] in KEY_NEIGHBOURS
            and lower[i] != lower[i + 1]
        ]
    return [i for i in range(1, len(word)) if lower[i] in KEY_NEIGHBOURS]


def inject_typo(
    word: str, rng: random.Random, kind: TypoKind | None = None
) -> tuple[str, TypoKind]:
    """*word* with one typo of *kind* (random if None) and the kind applied.

    The result is lower-case (people rarely capitalise while mistyping) and always differs
    from ``word.lower()``. Raises ValueError for a word shorter than MIN_TYPO_LENGTH or
    with no position the typo can go.
    """
    if len(word) < MIN_TYPO_LENGTH:
        raise ValueError(f"{word!r} is shorter than {MIN_TYPO_LENGTH} letters")
    lower = word.lower()
    kinds = [kind] if kind is not None else rng.sample(TYPO_KINDS, len(TYPO_KINDS))
    for chosen in kinds:
        positions = _positions(lower, chosen)
        if not positions:
            continue
        i = rng.choice(positions)
        if chosen == "drop":
            typo = lower[:i] + lower[i + 1 :]
        elif chosen == "swap":
            typo = lower[:i] + lower[i + 1] + lower[i] + lower[i + 2 :]
        elif chosen == "insert":
            typo = lower[:i] + rng.choice(KEY_NEIGHBOURS[lower[i]]) + lower[i:]
        else:
            typo = lower[:i] + rng.choice(KEY_NEIGHBOURS[lower[i]]) + lower[i + 1 :]
        if typo != lower:
            return typo, chosen
    raise ValueError(f"no place for a typo in {word!r}")
