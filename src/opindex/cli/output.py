"""Command output on stdout that survives its reader going away mid-run."""

from __future__ import annotations

import os
import sys


def emit(text: str) -> None:
    """Print *text*; if the reader has gone (`opindex sync | head -1`), send this and
    later output to /dev/null instead, so the work in progress (the next tenant's sync)
    is not cut short by an error about output nobody reads."""
    try:
        print(text, flush=True)
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(devnull, sys.stdout.fileno())
        finally:
            os.close(devnull)
