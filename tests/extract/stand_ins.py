"""Stand-ins for ``extract_text`` that the isolated worker runs in the tests: they hang,
crash, exhaust memory or raise on cue (by file name) and extract normally otherwise."""

from __future__ import annotations

import os
import signal
import time

from opindex.extract import Extraction, ExtractionLimits, Source, extract_text

GIB = 1024**3


def misbehave(
    source: Source, *, file_name: str, content_type: str | None, limits: ExtractionLimits
) -> Extraction:
    """Misbehave as ``file_name`` says, else extract."""
    if file_name == "hang.txt":
        time.sleep(600)  # never returns in a test: the Extractor must kill it
    elif file_name == "slow.txt":
        time.sleep(0.3)
    elif file_name == "crash.txt":
        os.kill(os.getpid(), signal.SIGSEGV)
    elif file_name == "hog.txt":
        hog = bytearray(2 * GIB)  # fits the machine, not the worker's RLIMIT_AS
        hog[-1] = 1
    elif file_name == "bug.txt":
        raise ZeroDivisionError("a bug in the extractor")
    return extract_text(source, file_name=file_name, content_type=content_type, limits=limits)
