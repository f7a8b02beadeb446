"""Checksums of every file of an index generation, recorded at commit, and damage marks.

ARCHITECTURE invariant 8: no generation is read before its files match these checksums.

After each commit (once the writer's merges have finished and the directory is quiet)
the writer records the size and SHA-256 of every regular file of the generation in
``checksums.json``, atomically. Any file present then is covered, whatever wrote it:
Tantivy's segment files and ``meta.json``, opindex's side files, files added later.

Readers verify a generation against it before Tantivy reads a byte of it (a damaged
segment file can make Tantivy panic), then only the files that appeared or changed since
(a reload after a commit); a file another process verified less than an hour ago and
whose stamp has not changed since is taken as verified (``verification_record``,
DECISIONS D158); the server's daemon re-reads every file now and then at a
bounded rate, which finds damage that appears later. Damage found anywhere — a checksum
mismatch, a Tantivy read error the checksums confirm, a Tantivy panic — is written to
``DAMAGED`` in the generation, so every process stops reading it and the next sync
builds a new generation instead of writing onto it.

Files that legitimately change between two commits are not compared byte for byte:

- ``meta.json`` and ``analysis/manifest.json`` are replaced by every commit: compared
  only while the recorded checksums describe the commit meta.json names (same opstamp);
  the manifest holds the checksums of the analysis store's own (immutable) files;
- ``.managed.json`` (Tantivy rewrites it whenever a writer creates a file) must only
  exist.

Between a commit and its checksums (a few milliseconds, or longer after a crash or a
full disk) the recorded ones describe the previous commit: files they list that a merge
removed are then not missing.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Final

from opindex.engine import Stamp as Stamp
from opindex.engine import VerifiedFile as VerifiedFile
from opindex.engine import damaged_error as damaged_error
from opindex.errors import IndexDamagedError, IndexUnavailableError

CHECKSUMS_FILE: Final = "checksums.json"
DAMAGE_FILE: Final = "DAMAGED"
META_FILE: Final = "meta.json"
ANALYSIS_MANIFEST: Final = "analysis/manifest.json"
"""The analysis store's manifest (it holds the checksums of the store's other files)."""
_PER_COMMIT: Final = frozenset({META_FILE, ANALYSIS_MANIFEST})
_EXISTENCE_ONLY: Final = frozenset({".managed.json"})
_CHUNK: Final = 1 << 20
_RETRIES: Final = 3

_SETTLE_NS: Final = 2_000_000_000
"""``record`` remembers a file's digest only if it was modified this long before."""
Pace = Callable[[int], None]
"""Called with the bytes just read; the background verifier sleeps there to bound its rate."""


@dataclass(frozen=True, slots=True)
class Checksums:
    """What a commit recorded: the opstamp of its ``meta.json`` and each file's size
    and SHA-256."""

    opstamp: int
    files: dict[str, tuple[int, str]]


@dataclass(frozen=True, slots=True)
class Verification:
    """The outcome of a clean verification: files and bytes read, whether any checksums
    were recorded at all (generations written before them have none), the files taken
    as verified from a record of an earlier verification, and each file read or taken
    with the stamp and SHA-256 it was verified at."""

    files: int
    bytes: int
    recorded: bool
    trusted: int = 0
    verified: dict[str, VerifiedFile] = field(default_factory=dict)


def _covered(name: str) -> bool:
    return name not in (CHECKSUMS_FILE, DAMAGE_FILE) and not name.endswith(".tmp")


def file_digest(path: Path, pace: Pace | None = None) -> str:
    """SHA-256 of the file."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(_CHUNK):
            digest.update(chunk)
            if pace is not None:
                pace(len(chunk))
    return digest.hexdigest()


def meta_opstamp(path: Path) -> int | None:
    """The opstamp ``meta.json`` names; None when it is missing or unreadable."""
    try:
        meta = json.loads((path / META_FILE).read_text(encoding="utf-8"))
        return int(meta["opstamp"])
    except (OSError, ValueError, TypeError, KeyError):
        return None


def record(path: Path, hashed: dict[str, VerifiedFile] | None = None) -> Checksums:
    """Record the checksums of every file of the generation at *path* (after a commit,
    with no writer active). Raises IndexUnavailableError if they cannot be written.

    *hashed*: the stamp and SHA-256 of the files this process hashed at an earlier
    record; a file whose stamp is unchanged is not read again (Tantivy's segment files
    never change: at 100k records they took 0.16 s of each commit), and the entries are
    replaced by what is recorded now, leaving out files modified less than
    ``_SETTLE_NS`` before they were hashed (a rewrite within the file system's timestamp
    granularity could keep the stamp)."""
    known = hashed if hashed is not None else {}
    settled_before = time.time_ns() - _SETTLE_NS
    try:
        names = [
            entry.name
            for entry in os.scandir(path)
            if entry.is_file(follow_symlinks=False) and _covered(entry.name)
        ]
        if (path / ANALYSIS_MANIFEST).is_file():
            names.append(ANALYSIS_MANIFEST)
        now: dict[str, VerifiedFile] = {}
        for name in names:
            st = os.stat(path / name)
            stamp = (st.st_ino, st.st_mtime_ns, st.st_size)
            before = known.get(name)
            now[name] = (
                before
                if before is not None and before[0] == stamp
                else (stamp, file_digest(path / name))
            )
        files = {name: (stamp[2], digest) for name, (stamp, digest) in now.items()}
        known.clear()
        known.update((n, entry) for n, entry in now.items() if entry[0][1] < settled_before)
        checksums = Checksums(meta_opstamp(path) or 0, files)
        data = {"opstamp": checksums.opstamp, "files": {k: list(v) for k, v in files.items()}}
        _write_atomically(path / CHECKSUMS_FILE, json.dumps(data, sort_keys=True))
    except OSError as exc:
        raise IndexUnavailableError(f"cannot write {path / CHECKSUMS_FILE}: {exc}") from exc
    return checksums


def _write_atomically(target: Path, text: str) -> None:
    temporary = target.with_name(target.name + ".tmp")
    with open(temporary, "w", encoding="utf-8") as handle:
        handle.write(text + "\n")
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temporary, target)


def read(path: Path) -> Checksums | None:
    """The recorded checksums; None if none were recorded (an older generation).

    Raises IndexDamagedError when the file exists but does not parse."""
    try:
        text = (path / CHECKSUMS_FILE).read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise _damaged(path, CHECKSUMS_FILE, f"cannot be read ({exc})") from exc
    try:
        data = json.loads(text)
        files = {
            str(name): (int(size), str(digest)) for name, (size, digest) in data["files"].items()
        }
        opstamp = int(data["opstamp"])
    except (ValueError, TypeError, KeyError, AttributeError, RecursionError) as exc:
        raise _damaged(path, CHECKSUMS_FILE, "is not a valid checksum list") from exc
    if any(size < 0 for size, _ in files.values()):
        raise _damaged(path, CHECKSUMS_FILE, "is not a valid checksum list")
    return Checksums(opstamp, files)


_damaged = damaged_error


def stat_stamp(path: Path) -> Stamp | None:
    """The file's stamp; None when it cannot be read (missing, say)."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_ino, st.st_mtime_ns, st.st_size)


def verify_generation(
    path: Path,
    *,
    seen: dict[str, Stamp] | None = None,
    pace: Pace | None = None,
    trusted: Mapping[str, VerifiedFile] | None = None,
) -> Verification:
    """Check the generation at *path* against its recorded checksums.

    ``seen`` maps files verified before to their (inode, mtime, size): those unchanged
    are not read again, and those verified now are added. ``trusted`` maps files another
    process verified to their stamp and SHA-256 then: a file with the same stamp whose
    recorded checksum is still that SHA-256 is not read either. Raises IndexDamagedError
    naming the first file that fails (retried when a commit changed the directory
    meanwhile)."""
    for attempt in range(_RETRIES):
        before = (stat_stamp(path / CHECKSUMS_FILE), stat_stamp(path / META_FILE))
        try:
            return _verify_once(path, seen, pace, trusted or {})
        except IndexDamagedError:
            after = (stat_stamp(path / CHECKSUMS_FILE), stat_stamp(path / META_FILE))
            if after == before or attempt == _RETRIES - 1:
                raise
    raise AssertionError("unreachable")  # pragma: no cover


def _verify_once(
    path: Path,
    seen: dict[str, Stamp] | None,
    pace: Pace | None,
    trusted: Mapping[str, VerifiedFile],
) -> Verification:
    checksums = read(path)
    if checksums is None:
        return Verification(0, 0, recorded=False)
    opstamp = meta_opstamp(path)
    if opstamp is None and (path / META_FILE).exists():  # replaced atomically: never torn
        raise _damaged(path, META_FILE, "does not parse")
    if opstamp is not None and opstamp < checksums.opstamp:  # commits only count up
        raise _damaged(path, META_FILE, "names an older commit than its checksums")
    current = checksums.opstamp == opstamp
    files = read_bytes = taken = 0
    verified: dict[str, VerifiedFile] = {}
    for name, (size, expected) in sorted(checksums.files.items()):
        file = path / name
        stamp = stat_stamp(file)
        if stamp is None:
            if current or name in _PER_COMMIT:
                raise _damaged(path, name, "is missing")
            continue  # removed by a merge after a commit whose checksums are not written yet
        if name in _EXISTENCE_ONLY or (name in _PER_COMMIT and not current):
            continue
        if seen is not None and seen.get(name) == stamp:
            continue
        if trusted.get(name) == (stamp, expected):
            taken += 1
            verified[name] = (stamp, expected)
            if seen is not None:
                seen[name] = stamp
            continue
        actual = stamp[2]
        if actual < size:
            raise _damaged(
                path, name, f"is truncated ({actual} bytes, its last commit wrote {size})"
            )
        if actual > size:
            raise _damaged(path, name, f"has grown ({actual} bytes, its last commit wrote {size})")
        try:
            digest = file_digest(file, pace=pace)
        except OSError as exc:
            raise _damaged(path, name, f"cannot be read ({exc.strerror or exc})") from exc
        if digest != expected:
            raise _damaged(path, name, "does not match the checksum recorded at its last commit")
        files, read_bytes = files + 1, read_bytes + size
        verified[name] = (stamp, expected)
        if seen is not None:
            seen[name] = stamp
    return Verification(files, read_bytes, recorded=True, trusted=taken, verified=verified)


def recorded_damage(path: Path) -> IndexDamagedError | None:
    """The damage recorded for the generation at *path*, None if none was."""
    try:
        text = (path / DAMAGE_FILE).read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except OSError as exc:
        return _damaged(path, DAMAGE_FILE, f"cannot be read ({exc.strerror or exc})")
    try:
        data = json.loads(text)
        file, reason = data.get("file"), str(data["reason"])
    except (ValueError, TypeError, KeyError, AttributeError, RecursionError):
        file, reason = None, "was marked damaged"
    return _damaged(path, file if isinstance(file, str) else None, reason)


def mark_damaged(path: Path, error: IndexDamagedError) -> None:
    """Record *error* in the generation, so no process reads it again (best effort: a
    read-only directory keeps the damage unrecorded, and it is found again)."""
    if not path.is_dir():
        return
    data = {
        "file": error.file,
        "reason": error.reason,
        "found_at": datetime.now(UTC).isoformat(),
    }
    try:
        _write_atomically(path / DAMAGE_FILE, json.dumps(data))
    except OSError:
        return


def tantivy_damage(path: Path, detail: str) -> IndexDamagedError:
    """The damage to record when Tantivy panicked on a generation whose checksums hold."""
    return _damaged(path, None, f"made Tantivy fail ({detail[:200]})")
