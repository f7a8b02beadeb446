"""Text made safe for a terminal: control characters shown as visible escapes."""

from __future__ import annotations

import logging
import re
from typing import Final

# C0 controls but tab and newline, DEL, C1 controls (ESC, BEL, CSI, OSC, …), and the
# bidirectional overrides and isolates that reorder what a terminal shows (DECISIONS D193).
_CONTROL: Final = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_CONTROL_OR_NEWLINE: Final = re.compile(f"[\n\t{_CONTROL.pattern[1:-1]}]")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def visible(text: str, *, one_line: bool = False) -> str:
    """*text* with every control character written as ``\\x1b`` / ``\\u202e``: nothing a
    record's title, a file name or a tenant name holds can move the cursor, retitle the
    window, ring the bell or reorder the line. Newlines and tabs stay (escaped too when
    *one_line*)."""
    pattern = _CONTROL_OR_NEWLINE if one_line else _CONTROL
    return pattern.sub(_escape, text)


class VisibleFormatter(logging.Formatter):
    """A log formatter whose lines are made ``visible`` (log messages quote names and
    titles from the server)."""

    def format(self, record: logging.LogRecord) -> str:
        return visible(super().format(record))
