"""A thread-safe SQLite connection to one state file, with nestable transactions."""

from __future__ import annotations

import contextlib
import sqlite3
import threading
from collections.abc import Callable, Iterator, Sequence
from datetime import datetime
from pathlib import Path
from typing import Self

from opindex import kill_points
from opindex.errors import StateCorruptError
from opindex.state.connection import (
    DEFAULT_BUSY_TIMEOUT_SECONDS,
    UNPARSABLE_ROW,
    IntegrityCheck,
    check_integrity,
    connect,
    state_error,
)
from opindex.state.migrations import Migration, applied_migrations, apply_migrations
from opindex.state.paths import ensure_private_directory, ensure_tenant_directory, state_db_path
from opindex.state.state_values import to_text, utc_now


class StateDatabase:
    """An open, migrated state database file; StateStore adds the typed API on top.

    Every SQLite failure surfaces as StateError naming the file.
    Access is serialized by a re-entrant lock, so one instance may be shared between
    threads; a transaction holds the instance for the thread that opened it.
    """

    def __init__(
        self,
        connection: sqlite3.Connection,
        path: Path,
        *,
        busy_timeout_seconds: float,
        clock: Callable[[], datetime],
    ) -> None:
        self._connection = connection
        self.path = path
        self._busy_timeout = busy_timeout_seconds
        self._clock = clock
        self._lock = threading.RLock()
        self._depth = 0

    @classmethod
    def open(
        cls,
        path: Path,
        *,
        busy_timeout_seconds: float = DEFAULT_BUSY_TIMEOUT_SECONDS,
        migrations: Sequence[Migration] | None = None,
        clock: Callable[[], datetime] = utc_now,
        check: IntegrityCheck = "none",
    ) -> Self:
        """Open (creating and migrating as needed) the database file at ``path``.

        ``check``: ``quick`` runs ``PRAGMA quick_check`` first (milliseconds for a state
        database; finds damaged pages behind a valid header), ``full`` runs
        ``PRAGMA integrity_check``; a failing database raises StateCorruptError.
        """
        ensure_private_directory(path.parent)
        connection = connect(path, busy_timeout_seconds=busy_timeout_seconds)
        try:
            if check != "none":
                check_integrity(connection, path, check)
            apply_migrations(connection, path, migrations, clock=clock)
        except BaseException:
            connection.close()
            raise
        return cls(connection, path, busy_timeout_seconds=busy_timeout_seconds, clock=clock)

    @classmethod
    def for_tenant(
        cls,
        data_dir: Path,
        tenant: str,
        *,
        busy_timeout_seconds: float = DEFAULT_BUSY_TIMEOUT_SECONDS,
        clock: Callable[[], datetime] = utc_now,
        check: IntegrityCheck = "none",
    ) -> Self:
        """Open ``<data_dir>/<tenant>/state.sqlite3``, creating private directories."""
        ensure_tenant_directory(data_dir, tenant)
        return cls.open(
            state_db_path(data_dir, tenant),
            busy_timeout_seconds=busy_timeout_seconds,
            clock=clock,
            check=check,
        )

    def close(self) -> None:
        """Close the connection; the store cannot be used afterwards."""
        with self._lock:
            self._connection.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # --- transactions ---------------------------------------------------------------

    @contextlib.contextmanager
    def transaction(self) -> Iterator[Self]:
        """Apply every change made inside the block atomically, or none if it raises.

        Nested blocks are savepoints: an inner block that raises undoes only its own
        changes if the outer block catches the exception.
        """
        with self._lock:
            depth = self._depth
            begin = "BEGIN IMMEDIATE" if depth == 0 else f"SAVEPOINT nested_{depth}"
            self._execute_control(begin, "starting a transaction")
            self._depth += 1
            try:
                yield self
            except BaseException:
                self._depth = depth
                with contextlib.suppress(sqlite3.Error):
                    if depth == 0:
                        if self._connection.in_transaction:
                            self._connection.execute("ROLLBACK")
                    else:
                        self._connection.execute(f"ROLLBACK TO nested_{depth}")
                        self._connection.execute(f"RELEASE nested_{depth}")
                raise
            self._depth = depth
            if depth == 0:
                try:
                    self._connection.execute("COMMIT")
                except sqlite3.Error as exc:
                    with contextlib.suppress(sqlite3.Error):
                        self._connection.execute("ROLLBACK")
                    raise state_error(exc, self.path, "committing", self._busy_timeout) from exc
                kill_points.reached("state-commit")
            else:
                self._execute_control(f"RELEASE nested_{depth}", "committing a savepoint")

    def _execute_control(self, statement: str, action: str) -> None:
        try:
            self._connection.execute(statement)
        except sqlite3.Error as exc:
            raise state_error(exc, self.path, action, self._busy_timeout) from exc

    @contextlib.contextmanager
    def _reading(self, action: str) -> Iterator[sqlite3.Connection]:
        with self._lock:
            try:
                yield self._connection
            except sqlite3.Error as exc:
                raise state_error(exc, self.path, action, self._busy_timeout) from exc
            except UNPARSABLE_ROW as exc:  # a row opindex never wrote: damaged, not a bug
                raise StateCorruptError(
                    f"{self.path}: a stored row does not parse while {action} ({exc}); "
                    "`opindex rebuild` moves it aside and starts a fresh one"
                ) from exc

    @contextlib.contextmanager
    def _writing(self, action: str) -> Iterator[sqlite3.Connection]:
        with self.transaction(), self._reading(action) as connection:
            yield connection

    def _now(self) -> str:
        return to_text(self._clock())

    def data_version(self) -> int:
        """SQLite's ``data_version`` of this connection: it changes whenever another
        connection commits, so a reader can keep what it read until then (one pragma)."""
        with self._reading("reading the data version") as connection:
            return int(connection.execute("PRAGMA data_version").fetchone()[0])

    def applied_migrations(self) -> list[str]:
        """Names of the migrations applied to this database."""
        with self._reading("reading migrations") as connection:
            return applied_migrations(connection)
