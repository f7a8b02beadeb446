"""Match-centred excerpts of field text, trimmed at word boundaries."""

from __future__ import annotations

from collections.abc import Sequence

ELLIPSIS = "…"
DEFAULT_MAX_LENGTH = 160
_TOKEN_ALLOWANCE = 8
"""Offsets mark where matched tokens start; centre a little after the last one."""


def _densest_cluster(offsets: list[int], width: int) -> tuple[int, int]:
    """First and last offset of the window of *width* chars holding the most offsets."""
    best = (offsets[0], offsets[0])
    best_count = 0
    left = 0
    for right, offset in enumerate(offsets):
        while offset - offsets[left] > width:
            left += 1
        if right - left + 1 > best_count:
            best_count = right - left + 1
            best = (offsets[left], offset)
    return best


def _trim_start(text: str, start: int, keep: int) -> int:
    """Move *start* forward to the beginning of a word, but never past *keep*."""
    if start == 0 or text[start - 1].isspace():
        return start
    for index in range(start, keep):
        if text[index].isspace():
            return index + 1
    return start


def _trim_end(text: str, end: int, keep: int) -> int:
    """Move *end* back to the end of a word, but never before *keep*."""
    if end >= len(text) or text[end].isspace():
        return end
    for index in range(end - 1, keep - 1, -1):
        if text[index].isspace():
            return index
    return end


def extract_snippet(
    text: str, matched_offsets: Sequence[int], max_length: int = DEFAULT_MAX_LENGTH
) -> str:
    """An excerpt of at most *max_length* characters centred on the matched offsets.

    The window covers the densest cluster of offsets, is cut at word boundaries where
    possible, gets an ellipsis on each cut side, and has its whitespace runs collapsed.
    Without offsets the excerpt starts at the beginning of the text.
    """
    if len(text) <= max_length:
        return " ".join(text.split())
    if max_length < 3:  # no room for ellipses
        return text[: max(max_length, 0)]
    offsets = sorted(o for o in matched_offsets if 0 <= o < len(text))
    budget = max_length - 2  # room for an ellipsis on each side
    if offsets:
        first, last = _densest_cluster(offsets, budget // 2)
        centre = (first + last) // 2 + _TOKEN_ALLOWANCE
        start = max(0, min(centre - budget // 2, len(text) - budget))
    else:
        first = last = start = 0
    end = min(len(text), start + budget)
    if start > 0:
        start = _trim_start(text, start, first)
    if end < len(text):
        end = _trim_end(text, end, max(last + 1, start + 1))
    body = " ".join(text[start:end].split())
    prefix = ELLIPSIS if start > 0 else ""
    suffix = ELLIPSIS if end < len(text) else ""
    return prefix + body + suffix
