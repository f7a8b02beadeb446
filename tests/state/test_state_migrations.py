"""Migrations: located in package or source tree, applied once, atomically, in order."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from opindex.errors import StateError
from opindex.state import StateStore
from opindex.state.connection import connect
from opindex.state.migrations import (
    SOURCE_TREE_MIGRATIONS,
    Migration,
    applied_migrations,
    apply_migrations,
    load_migrations,
    locate_migrations,
    split_statements,
)

REPO_MIGRATIONS = Path(__file__).resolve().parents[2] / "migrations"
EXPECTED_TABLES = {
    "schema_migrations",
    "sync_runs",
    "high_water_marks",
    "known_records",
    "wiki_discovery",
    "wiki_probed_ranges",
    "capabilities",
    "index_pointer",
    "full_sync_checkpoint",
    "attachment_extractions",
    "checkpoint_records",
    "manifest_summary",
    "webhook_counts",
    "background_failures",
}


def tables(path: Path) -> set[str]:
    with sqlite3.connect(path) as connection:
        found = connection.execute("SELECT name FROM sqlite_schema WHERE type = 'table'")
        return {row[0] for row in found} - {"sqlite_sequence"}


def recorded(path: Path) -> list[tuple[str, str]]:
    with sqlite3.connect(path) as connection:
        return connection.execute(
            "SELECT name, applied_at FROM schema_migrations ORDER BY name"
        ).fetchall()


def test_fresh_database_gets_every_migration(tmp_path: Path) -> None:
    path = tmp_path / "state.sqlite3"
    with StateStore.open(path) as store:
        names = [p.stem for p in sorted(REPO_MIGRATIONS.glob("*.sql"))]
        assert store.applied_migrations() == names
    assert "0001_initial" in names
    assert tables(path) == EXPECTED_TABLES


def test_rerunning_is_a_no_op(tmp_path: Path) -> None:
    path = tmp_path / "state.sqlite3"
    StateStore.open(path).close()
    before = recorded(path)
    connection = connect(path)
    try:
        assert apply_migrations(connection, path) == []
    finally:
        connection.close()
    StateStore.open(path).close()
    assert recorded(path) == before


def test_failing_migration_rolls_back_completely_and_is_not_recorded(tmp_path: Path) -> None:
    path = tmp_path / "state.sqlite3"
    good = Migration("0001_good", "CREATE TABLE a (x INTEGER);\nINSERT INTO a VALUES (1);")
    bad = Migration(
        "0002_bad",
        "CREATE TABLE b (x INTEGER);\nINSERT INTO a VALUES (2);\nINSERT INTO missing VALUES (1);",
    )
    connection = connect(path)
    try:
        with pytest.raises(StateError, match="migration 0002_bad failed and was rolled back"):
            apply_migrations(connection, path, [good, bad])
        assert applied_migrations(connection) == ["0001_good"]
        assert connection.execute("SELECT x FROM a").fetchall() == [(1,)]
        assert "b" not in tables(path)
        assert not connection.in_transaction

        fixed = Migration("0002_bad", "CREATE TABLE b (x INTEGER);")
        assert apply_migrations(connection, path, [good, fixed]) == ["0002_bad"]
    finally:
        connection.close()
    assert {"a", "b"} <= tables(path)


def test_database_from_newer_version_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "state.sqlite3"
    StateStore.open(path).close()
    with sqlite3.connect(path) as connection:
        connection.execute("INSERT INTO schema_migrations VALUES ('9999_future', 'x')")
    with pytest.raises(StateError, match=r"newer opindex .*9999_future"):
        StateStore.open(path)


def test_split_statements_respects_strings_comments_and_triggers() -> None:
    sql = """
    -- a comment; with a semicolon
    CREATE TABLE t (x TEXT DEFAULT 'a;b');
    /* block; comment */
    CREATE TRIGGER tr AFTER INSERT ON t BEGIN
        UPDATE t SET x = 'c;d' WHERE x = new.x;
        SELECT 1;
    END;
    INSERT INTO t VALUES ('e;f');  -- trailing comment
    """
    statements = split_statements(sql)
    assert len(statements) == 3
    assert statements[0].endswith("DEFAULT 'a;b');")
    assert statements[1].startswith("/* block; comment */") and statements[1].endswith("END;")
    assert statements[2] == "INSERT INTO t VALUES ('e;f');"
    connection = sqlite3.connect(":memory:")
    for statement in statements:
        connection.execute(statement)
    assert connection.execute("SELECT x FROM t").fetchall() == [("c;d",)]


def test_unterminated_statement_is_refused() -> None:
    with pytest.raises(StateError, match="not terminated"):
        split_statements("CREATE TABLE a (x); CREATE TABLE b (y)")


def test_source_tree_fallback_in_editable_install() -> None:
    assert SOURCE_TREE_MIGRATIONS == REPO_MIGRATIONS
    located = locate_migrations()
    assert {entry.name for entry in located.iterdir()} >= {"0001_initial.sql"}
    names = [migration.name for migration in load_migrations()]
    assert names == [p.stem for p in sorted(REPO_MIGRATIONS.glob("*.sql"))]


@pytest.fixture
def fake_package(tmp_path: Path) -> Iterator[Path]:
    """An importable package ``opindex_fake_pkg`` under tmp_path (without migrations)."""
    package = tmp_path / "site" / "opindex_fake_pkg"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    sys.path.insert(0, str(package.parent))
    try:
        yield package
    finally:
        sys.path.remove(str(package.parent))
        sys.modules.pop("opindex_fake_pkg", None)


def test_packaged_migrations_win_over_source_tree(tmp_path: Path, fake_package: Path) -> None:
    source_tree = tmp_path / "checkout" / "migrations"
    source_tree.mkdir(parents=True)
    (source_tree / "0001_source.sql").write_text("CREATE TABLE s (x);")

    located = locate_migrations("opindex_fake_pkg", source_tree)
    assert Path(str(located)) == source_tree

    (fake_package / "migrations").mkdir()
    (fake_package / "migrations" / "0001_packaged.sql").write_text("CREATE TABLE p (x);")
    located = locate_migrations("opindex_fake_pkg", source_tree)
    assert [m.name for m in load_migrations(located)] == ["0001_packaged"]


def test_no_migrations_anywhere_is_a_clear_error(tmp_path: Path, fake_package: Path) -> None:
    with pytest.raises(StateError, match="SQL migrations not found"):
        locate_migrations("opindex_fake_pkg", tmp_path / "nowhere")


@pytest.mark.parametrize(
    ("files", "problem"),
    [
        ({"1_short.sql": ""}, "not named NNNN_description.sql"),
        ({"0001_a.sql": "", "0001_b.sql": ""}, "share number 0001"),
        ({"README.md": "x"}, "no migration files"),
    ],
)
def test_bad_migration_folders(tmp_path: Path, files: dict[str, str], problem: str) -> None:
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    with pytest.raises(StateError, match=problem):
        load_migrations(tmp_path)


def test_processes_migrating_at_once_apply_each_migration_once(tmp_path: Path) -> None:
    path = tmp_path / "state.sqlite3"
    script = (
        "import sys; from pathlib import Path; from opindex.state import StateStore\n"
        "StateStore.open(Path(sys.argv[1])).close()\n"
    )
    processes = [
        subprocess.Popen([sys.executable, "-c", script, str(path)], stderr=subprocess.PIPE)
        for _ in range(4)
    ]
    for process in processes:
        _, stderr = process.communicate(timeout=60)
        assert process.returncode == 0, stderr.decode()
    names = [name for name, _ in recorded(path)]
    assert names == [p.stem for p in sorted(REPO_MIGRATIONS.glob("*.sql"))]
