"""What a process verified of a generation, and when: later processes trust it for an hour.

ARCHITECTURE invariant 8 has every process check a generation's files before Tantivy
reads them; a long-lived server does that once per file, and its daemon re-reads the
live generation every ``VERIFY_INTERVAL_SECONDS`` (DECISIONS D92). A one-shot process
(``opindex search``, ``status``) gets the same guarantee from this record (DECISIONS
D158): after a clean verification it writes each file's stamp (inode, mtime, size) and
the SHA-256 the file was found to have, with the time of the verification. A process
opening the generation less than ``VERIFY_INTERVAL_SECONDS`` later takes a file whose
stamp and recorded checksum are unchanged as verified, and reads every other file.

The record lives in a directory of its own inside the generation, so it is no file the
checksums cover (they list the generation's top-level files and the analysis manifest),
in this version or an older one. Writing it is best effort (a read-only directory keeps
none) and atomic; a record that does not parse, names another format, is older than the
interval or dated in the future is ignored. A file written less than ``RACY_SECONDS``
before its verification is left out: a second write within the file system's timestamp
granularity could leave its stamp unchanged.
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from opindex.index.checksums import VerifiedFile

VERIFY_INTERVAL_SECONDS: Final = 3600
"""How long a verification holds: the interval at which the server's daemon re-reads each
live generation, until which a server's reader trusts what it verified when it opened."""
RACY_SECONDS: Final = 2.0
"""A file modified this close to its verification is not recorded (coarse timestamps)."""
RECORD_DIRECTORY: Final = "verified"
RECORD_FILE: Final = "stamps.json"
_FORMAT: Final = 1


@dataclass(frozen=True, slots=True)
class VerificationRecord:
    """When the files were verified (seconds since the epoch; the oldest verification
    among them) and each one's stamp and SHA-256 then, by path within the generation."""

    verified_at: float
    files: dict[str, VerifiedFile]


def record_path(generation: Path) -> Path:
    """Where the record of the generation at *generation* is kept."""
    return generation / RECORD_DIRECTORY / RECORD_FILE


def read_record(generation: Path, now: float) -> VerificationRecord | None:
    """The record, if there is a well-formed one less than VERIFY_INTERVAL_SECONDS old
    at *now* (seconds since the epoch); None otherwise."""
    try:
        data = json.loads(record_path(generation).read_text(encoding="utf-8"))
        if data["format"] != _FORMAT:
            return None
        verified_at = float(data["verified_at"])
        files = {str(name): _entry(value) for name, value in data["files"].items()}
    except (OSError, ValueError, TypeError, KeyError, AttributeError, RecursionError):
        return None  # UnicodeDecodeError and JSONDecodeError are ValueErrors
    if not 0 <= now - verified_at < VERIFY_INTERVAL_SECONDS:
        return None
    return VerificationRecord(verified_at, files)


def _entry(value: object) -> VerifiedFile:
    if not isinstance(value, list) or len(value) != 4:
        raise ValueError("not a verified file")
    inode, mtime_ns, size, digest = value
    if not all(type(n) is int for n in (inode, mtime_ns, size)) or not isinstance(digest, str):
        raise ValueError("not a verified file")
    return ((inode, mtime_ns, size), digest)


def settled(files: Mapping[str, VerifiedFile], verified_at: float) -> dict[str, VerifiedFile]:
    """The *files* last modified at least RACY_SECONDS before *verified_at*."""
    limit = (verified_at - RACY_SECONDS) * 1e9
    return {name: entry for name, entry in files.items() if entry[0][1] < limit}


def write_record(generation: Path, record: VerificationRecord) -> None:
    """Keep *record* for the generation at *generation* (atomically; best effort)."""
    data = {
        "format": _FORMAT,
        "verified_at": record.verified_at,
        "files": {name: [*stamp, digest] for name, (stamp, digest) in record.files.items()},
    }
    target = record_path(generation)
    temporary = target.with_name(f"{RECORD_FILE}.{os.getpid()}.{threading.get_ident()}.tmp")
    try:
        target.parent.mkdir(exist_ok=True)
        # Not fsynced: after a crash the record is the old one, the new one or a torn file
        # that does not parse, and each of those is sound to read.
        temporary.write_text(json.dumps(data, sort_keys=True), encoding="utf-8")
        os.replace(temporary, target)
    except OSError:
        with contextlib.suppress(OSError):
            temporary.unlink(missing_ok=True)
