"""Re-reading a whole generation: the files its checksums cover, then its analysis segments.

A reader checks the analysis segments it maps against the manifest's SHA-256 when it maps
them (``analysis_segment.ArrayFile``), and the other files against ``checksums.json``
before Tantivy reads them. Damage appearing later is found by re-reading: the daemon's
hourly pass (DECISIONS D92) and ``opindex status --verify``. Both read every file here, the
segments included, paced like the rest.
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import Final

from opindex.engine import DIRECTORY, MANIFEST, listed_segments
from opindex.errors import IndexDamagedError
from opindex.index.checksums import (
    Pace,
    Verification,
    damaged_error,
    file_digest,
    stat_stamp,
    verify_generation,
)

_RETRIES: Final = 3


def reread_generation(path: Path, pace: Pace | None = None) -> Verification:
    """Verify every file of the generation at *path* again: those ``checksums.json``
    covers, then each analysis segment against the size and SHA-256 its manifest records.
    Raises IndexDamagedError naming the first file that fails (retried when a commit
    replaced the segments meanwhile). A generation without checksums is not read."""
    found = verify_generation(path, pace=pace)
    if not found.recorded:
        return found
    files, read = _segments(path, pace)
    return dataclasses.replace(found, files=found.files + files, bytes=found.bytes + read)


def _segments(path: Path, pace: Pace | None) -> tuple[int, int]:
    for attempt in range(_RETRIES):
        before = stat_stamp(path / DIRECTORY / MANIFEST)
        try:
            return _segments_once(path, pace)
        except IndexDamagedError:
            if stat_stamp(path / DIRECTORY / MANIFEST) == before or attempt == _RETRIES - 1:
                raise
    raise AssertionError("unreachable")  # pragma: no cover


def _segments_once(path: Path, pace: Pace | None) -> tuple[int, int]:
    files = read = 0
    for check in listed_segments(path):
        name = f"{DIRECTORY}/{check.name}"
        try:
            size = os.stat(path / name).st_size
        except FileNotFoundError as exc:
            raise damaged_error(path, name, "is missing") from exc
        except OSError as exc:
            raise damaged_error(path, name, f"cannot be read ({exc.strerror or exc})") from exc
        if size != check.size:
            raise damaged_error(path, name, f"is {size} bytes, its manifest says {check.size}")
        try:
            digest = file_digest(path / name, pace=pace)
        except OSError as exc:
            raise damaged_error(path, name, f"cannot be read ({exc.strerror or exc})") from exc
        if digest != check.sha256:
            raise damaged_error(path, name, "does not match the checksum in its manifest")
        files, read = files + 1, read + size
    return files, read
