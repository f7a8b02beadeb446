"""Opening a state database file and turning SQLite failures into StateError messages."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Final, Literal

from opindex.errors import StateCorruptError, StateError, StateLockedError
from opindex.state.paths import create_private_file

IntegrityCheck = Literal["none", "quick", "full"]
UNPARSABLE_ROW: Final = (TypeError, ValueError, KeyError, AttributeError, RecursionError)
"""What decoding a stored row raises when its value is not what opindex wrote."""

DEFAULT_BUSY_TIMEOUT_SECONDS = 5.0
"""How long a statement waits for another process's write lock before giving up."""


def connect(
    path: Path, *, busy_timeout_seconds: float = DEFAULT_BUSY_TIMEOUT_SECONDS
) -> sqlite3.Connection:
    """Open (creating it 0o600 if absent) the SQLite file at ``path``, ready for use.

    The connection is in autocommit mode (``isolation_level=None``): every transaction is
    explicit (``BEGIN IMMEDIATE`` ... ``COMMIT``). It uses WAL journaling, so readers never
    wait for the syncer, and ``synchronous=FULL``, so a committed transaction survives a
    power loss. It may be shared between threads if the caller serializes access.
    Raises StateError if the file is locked beyond the timeout, is not a database, or
    cannot be created.
    """
    create_private_file(path)
    try:
        connection = sqlite3.connect(
            path,
            timeout=busy_timeout_seconds,
            isolation_level=None,
            check_same_thread=False,
        )
    except sqlite3.Error as exc:
        raise state_error(exc, path, "opening", busy_timeout_seconds) from exc
    try:
        connection.execute(f"PRAGMA busy_timeout = {int(busy_timeout_seconds * 1000)}")
        # The first statement that reads the file: fails here if it is not a database.
        connection.execute("SELECT count(*) FROM sqlite_schema").fetchone()
        connection.execute("PRAGMA journal_mode = WAL").fetchone()
        connection.execute("PRAGMA synchronous = FULL")
        connection.execute("PRAGMA foreign_keys = ON")
    except sqlite3.Error as exc:
        connection.close()
        raise state_error(exc, path, "opening", busy_timeout_seconds) from exc
    return connection


def state_error(
    exc: sqlite3.Error, path: Path, action: str, busy_timeout_seconds: float | None = None
) -> StateError:
    """A StateError explaining ``exc`` in terms of the state file at ``path``.

    ``action`` says what was being done ("opening", "recording a sync run", ...).
    """
    name = getattr(exc, "sqlite_errorname", "") or ""
    detail = str(exc)
    if name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")) or "locked" in detail:
        waited = f" for {busy_timeout_seconds:g} s" if busy_timeout_seconds is not None else ""
        return StateLockedError(
            f"state database {path} is locked by another process (waited{waited} while "
            f"{action}); retry when the other sync finishes"
        )
    if name.startswith(("SQLITE_NOTADB", "SQLITE_CORRUPT")) or "not a database" in detail:
        return StateCorruptError(
            f"{path} is not a usable state database ({detail}); `opindex rebuild` moves it "
            "aside and starts a fresh one (the index is then re-synced)"
        )
    if name.startswith(("SQLITE_READONLY", "SQLITE_CANTOPEN", "SQLITE_PERM", "SQLITE_IOERR")):
        return StateError(f"cannot write state database {path} while {action}: {detail}")
    if name.startswith("SQLITE_FULL"):
        return StateError(f"disk full while {action} in state database {path}")
    return StateError(f"state database {path}: {action} failed: {detail}")


def check_integrity(connection: sqlite3.Connection, path: Path, check: IntegrityCheck) -> None:
    """Run ``PRAGMA quick_check`` (or ``integrity_check`` for ``full``) on an open
    connection; StateCorruptError naming the first problem SQLite reports."""
    pragma = "integrity_check" if check == "full" else "quick_check"
    try:
        rows = connection.execute(f"PRAGMA {pragma}(5)").fetchall()
    except sqlite3.Error as exc:
        raise state_error(exc, path, f"checking ({pragma})") from exc
    findings = [str(row[0]) for row in rows]
    if findings != ["ok"]:
        raise StateCorruptError(
            f"{path} is damaged ({pragma}: {'; '.join(findings)[:300]}); `opindex rebuild` "
            "moves it aside and starts a fresh one (the index is then re-synced)"
        )
