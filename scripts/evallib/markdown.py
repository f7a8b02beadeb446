"""Small Markdown builders for the generated benchmark page."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def table(header: Sequence[str], rows: Sequence[Sequence[Any]], align: str = "") -> str:
    """A Markdown table; *align* is one letter per column (l/r/c), default left then right."""
    align = align or "l" + "r" * (len(header) - 1)
    marks = {"l": ":--", "r": "--:", "c": ":-:"}
    lines = [
        "| " + " | ".join(str(h) for h in header) + " |",
        "|" + "|".join(marks[a] for a in align) + "|",
    ]
    for row in rows:
        lines.append("| " + " | ".join(cell(v) for v in row) + " |")
    return "\n".join(lines)


def cell(value: Any) -> str:
    """A table cell: floats at 2 decimals, None as a dash, pipes escaped."""
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:.2f}"
    return str(value).replace("|", "\\|").replace("\n", " ")


def ms(value: float | None) -> str:
    """Milliseconds, with precision suited to the magnitude."""
    if value is None:
        return "–"
    if value < 10:
        return f"{value:.1f} ms"
    return f"{value:,.0f} ms"


def ratio(value: float | None) -> str:
    return "–" if value is None else f"{value:.2f}"


def code(text: str) -> str:
    """Inline code, safe for text holding backticks."""
    fence = "``" if "`" in text else "`"
    return f"{fence}{text}{fence}"


def block(text: str) -> str:
    """A fenced code block."""
    return "```\n" + text.rstrip("\n") + "\n```"
