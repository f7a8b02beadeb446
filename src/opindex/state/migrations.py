"""Numbered SQL migrations: found in the package (or source tree), applied in order, once.

The files are ``NNNN_description.sql`` in the top-level ``migrations/`` folder of the
source tree, shipped inside the wheel as ``opindex/migrations``. Each migration runs in its
own transaction together with its row in ``schema_migrations`` (name, applied_at): it is
applied completely and recorded, or not at all. Statements are executed one by one (never
with ``executescript``, which would commit on its own), so a migration must not contain
transaction control statements or PRAGMAs that cannot run inside a transaction.
"""

from __future__ import annotations

import contextlib
import re
import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

from opindex.errors import StateError
from opindex.state.connection import state_error
from opindex.state.state_values import to_text, utc_now

MIGRATION_FILE_NAME = re.compile(r"(\d{4})_[a-z0-9_]+\.sql")

# src/opindex/state/migrations.py -> the repository root is three levels above "state".
SOURCE_TREE_MIGRATIONS = Path(__file__).resolve().parents[3] / "migrations"

_BOOTSTRAP = (
    "CREATE TABLE IF NOT EXISTS schema_migrations ("
    "name TEXT PRIMARY KEY, applied_at TEXT NOT NULL) WITHOUT ROWID"
)
_COMMENTS = re.compile(r"--[^\n]*|/\*.*?\*/", re.DOTALL)


@dataclass(frozen=True, slots=True)
class Migration:
    """One migration: its name (file name without ``.sql``) and its SQL text."""

    name: str
    sql: str


def locate_migrations(
    package: str = "opindex", source_tree: Path = SOURCE_TREE_MIGRATIONS
) -> Traversable:
    """The migrations folder: ``<package>/migrations`` if installed, else the source tree's.

    An installed wheel carries the files inside the package; an editable install does not,
    and reads them from the top-level ``migrations/`` folder of the checkout.
    """
    packaged = resources.files(package) / "migrations"
    if packaged.is_dir():
        return packaged
    if source_tree.is_dir():
        return source_tree
    raise StateError(
        f"SQL migrations not found: neither {package}/migrations in the installed package "
        f"nor {source_tree} exists; reinstall opindex"
    )


def load_migrations(directory: Traversable | None = None) -> list[Migration]:
    """Every ``NNNN_*.sql`` file of ``directory`` (default: :func:`locate_migrations`)."""
    folder = locate_migrations() if directory is None else directory
    migrations: dict[str, Migration] = {}
    for entry in folder.iterdir():
        if not entry.name.endswith(".sql"):
            continue
        match = MIGRATION_FILE_NAME.fullmatch(entry.name)
        if match is None:
            raise StateError(f"migration file {entry.name} is not named NNNN_description.sql")
        number = match.group(1)
        if number in migrations:
            raise StateError(
                f"migrations {migrations[number].name} and {entry.name} share number {number}"
            )
        sql = entry.read_text(encoding="utf-8")
        migrations[number] = Migration(entry.name.removesuffix(".sql"), sql)
    if not migrations:
        raise StateError(f"no migration files in {folder}")
    return [migrations[number] for number in sorted(migrations)]


def split_statements(sql: str) -> list[str]:
    """Split SQL text into single statements (string literals, comments and trigger
    bodies are respected, because a piece ends only where SQLite says a statement is
    complete). Raises StateError on a trailing statement without ``;``.
    """
    statements: list[str] = []
    buffer = ""
    pieces = sql.split(";")
    for piece in pieces[:-1]:
        buffer += piece + ";"
        if sqlite3.complete_statement(buffer):
            if _has_code(buffer):
                statements.append(buffer.strip())
            buffer = ""
    buffer += pieces[-1]
    if _has_code(buffer):
        raise StateError(f"SQL statement not terminated with ';': {buffer.strip()[:80]!r}")
    return statements


def _has_code(sql: str) -> bool:
    return bool(_COMMENTS.sub("", sql).strip(" \t\r\n;"))


def applied_migrations(connection: sqlite3.Connection) -> list[str]:
    """Names of the migrations recorded in ``schema_migrations``, in order."""
    rows = connection.execute("SELECT name FROM schema_migrations ORDER BY name").fetchall()
    return [str(row[0]) for row in rows]


def apply_migrations(
    connection: sqlite3.Connection,
    path: Path,
    migrations: Sequence[Migration] | None = None,
    *,
    clock: Callable[[], datetime] = utc_now,
) -> list[str]:
    """Apply the migrations not yet recorded, each in one transaction; return their names.

    ``connection`` must be in autocommit mode (see :func:`opindex.state.connection.connect`);
    ``path`` is only used in messages. Re-running is a no-op. Raises StateError naming the
    migration if one fails (it is rolled back and not recorded; earlier ones stay), and if
    the database records a migration this version does not know (written by a newer
    opindex).
    """
    pending = load_migrations() if migrations is None else list(migrations)
    try:
        connection.execute(_BOOTSTRAP)
        applied = set(applied_migrations(connection))
    except sqlite3.Error as exc:
        raise state_error(exc, path, "reading applied migrations") from exc
    unknown = sorted(applied - {migration.name for migration in pending})
    if unknown:
        raise StateError(
            f"state database {path} was migrated by a newer opindex (unknown migrations: "
            f"{', '.join(unknown)}); upgrade opindex or use another data directory"
        )
    done: list[str] = []
    for migration in pending:
        if migration.name not in applied and _apply_one(connection, path, migration, clock):
            done.append(migration.name)
    return done


def _apply_one(
    connection: sqlite3.Connection,
    path: Path,
    migration: Migration,
    clock: Callable[[], datetime],
) -> bool:
    statements = split_statements(migration.sql)
    try:
        connection.execute("BEGIN IMMEDIATE")
    except sqlite3.Error as exc:
        raise state_error(exc, path, f"applying migration {migration.name}") from exc
    try:
        recorded = connection.execute(
            "SELECT 1 FROM schema_migrations WHERE name = ?", (migration.name,)
        ).fetchone()
        if recorded is not None:  # another process applied it while we waited for the lock
            connection.execute("ROLLBACK")
            return False
        for statement in statements:
            connection.execute(statement)
        connection.execute(
            "INSERT INTO schema_migrations (name, applied_at) VALUES (?, ?)",
            (migration.name, to_text(clock())),
        )
        connection.execute("COMMIT")
    except BaseException as exc:
        if connection.in_transaction:
            with contextlib.suppress(sqlite3.Error):
                connection.execute("ROLLBACK")
        if not isinstance(exc, sqlite3.Error):
            raise
        if "locked" in str(exc):
            raise state_error(exc, path, f"applying migration {migration.name}") from exc
        raise StateError(
            f"migration {migration.name} failed and was rolled back (state database {path}): {exc}"
        ) from exc
    return True
