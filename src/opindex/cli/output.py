"""Command output on stdout that survives its reader going away mid-run."""

from __future__ import annotations

import os
import sys

from opindex.cli.terminal_text import visible


def emit(text: str) -> None:
    """Print *text* (made ``visible``); if the reader has gone (`opindex sync | head -1`),
    send this and later output to /dev/null instead, so the work in progress (the next
    tenant's sync) is not cut short by an error about output nobody reads."""
    try:
        print(visible(text), flush=True)
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(devnull, sys.stdout.fileno())
        finally:
            os.close(devnull)
