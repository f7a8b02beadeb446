"""The state database fails clearly and loses nothing: locked, corrupt, unwritable."""

from __future__ import annotations

import os
import sqlite3
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from tests.support.processes import subprocess_env, unprivileged_prefix

from opindex.errors import InvalidArgumentError, StateCorruptError, StateError
from opindex.state import RecordVersion, StateStore
from opindex.state.paths import move_aside


def test_private_permissions(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    with StateStore.for_tenant(data_dir, "acme") as store:
        assert store.path == data_dir / "acme" / "state.sqlite3"
    assert stat.S_IMODE(data_dir.stat().st_mode) == 0o700
    assert stat.S_IMODE((data_dir / "acme").stat().st_mode) == 0o700
    assert stat.S_IMODE(store.path.stat().st_mode) == 0o600


def test_existing_data_dir_keeps_its_permissions(tmp_path: Path) -> None:
    data_dir = tmp_path / "shared"
    data_dir.mkdir(mode=0o755)
    os.chmod(data_dir, 0o755)
    StateStore.for_tenant(data_dir, "acme").close()
    assert stat.S_IMODE(data_dir.stat().st_mode) == 0o755
    assert stat.S_IMODE((data_dir / "acme").stat().st_mode) == 0o700


def test_write_while_locked_gives_state_error(tmp_path: Path) -> None:
    store = StateStore.open(tmp_path / "s.sqlite3", busy_timeout_seconds=0.05)
    holder = sqlite3.connect(store.path, isolation_level=None)
    try:
        holder.execute("BEGIN IMMEDIATE")
        with pytest.raises(StateError, match=r"is locked by another process \(waited for 0.05 s"):
            store.upsert_known("work_package", [RecordVersion(1)])
        assert store.known_ids("work_package") == set()  # WAL: reads still work
        holder.execute("ROLLBACK")
        store.upsert_known("work_package", [RecordVersion(1)])
        assert store.known_ids("work_package") == {1}
    finally:
        holder.close()
        store.close()


def test_open_while_exclusively_locked_gives_state_error(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite3"
    holder = sqlite3.connect(path, isolation_level=None)  # rollback journal: blocks readers
    try:
        holder.execute("CREATE TABLE other (x)")
        holder.execute("BEGIN EXCLUSIVE")
        with pytest.raises(StateError, match=f"{path} is locked"):
            StateStore.open(path, busy_timeout_seconds=0.05)
    finally:
        holder.close()


def test_corrupt_file_names_the_file_and_is_left_untouched(tmp_path: Path) -> None:
    path = tmp_path / "acme" / "state.sqlite3"
    path.parent.mkdir()
    garbage = b"this is not a database, just some text\n" * 200
    path.write_bytes(garbage)
    with pytest.raises(StateError, match=f"{path} is not a usable state database"):
        StateStore.for_tenant(tmp_path, "acme")
    assert path.read_bytes() == garbage
    assert sorted(p.name for p in path.parent.iterdir()) == ["state.sqlite3"]


def test_unwritable_location_gives_state_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("a regular file where a directory should be")
    with pytest.raises(StateError, match="cannot create directory"):
        StateStore.for_tenant(blocker, "acme")
    with pytest.raises(StateError):
        StateStore.open(blocker / "state.sqlite3")


OPEN_IN = """
import sys
from pathlib import Path
from opindex.errors import StateError
from opindex.state import StateStore
try:
    StateStore.for_tenant(Path(sys.argv[1]), "acme")
except StateError as error:
    print(type(error).__name__, error)
else:
    print("opened")
"""


def test_read_only_directory_gives_state_error(tmp_path: Path) -> None:
    # In a subprocess, which runs without root's privilege over files when the tests run as
    # root (root ignores permission bits).
    prefix = unprivileged_prefix(tmp_path / "probe")
    locked = tmp_path / "ro"
    locked.mkdir()
    os.chmod(locked, 0o500)
    try:
        opened = subprocess.run(
            [*prefix, sys.executable, "-c", OPEN_IN, str(locked)],
            capture_output=True,
            text=True,
            timeout=60,
            env=subprocess_env(),
        )
    finally:
        os.chmod(locked, 0o700)
    assert opened.returncode == 0, opened.stderr
    assert opened.stdout.startswith("StateError "), opened.stdout
    assert "Permission denied" in opened.stdout
    assert list(locked.iterdir()) == []


@pytest.mark.parametrize("name", ["../escape", "Upper", "", "a/b", "."])
def test_tenant_names_that_could_escape_are_refused(tmp_path: Path, name: str) -> None:
    with pytest.raises(InvalidArgumentError, match="invalid tenant name"):
        StateStore.for_tenant(tmp_path, name)
    assert list(tmp_path.iterdir()) == []


def test_a_corrupt_database_raises_state_corrupt_error(tmp_path: Path) -> None:
    path = tmp_path / "state.sqlite3"
    path.write_bytes(b"garbage " * 100)
    with pytest.raises(StateCorruptError, match="moves it aside"):
        StateStore.open(path)


def test_move_aside_keeps_the_file_and_its_companions_under_a_free_name(
    tmp_path: Path,
) -> None:
    path = tmp_path / "state.sqlite3"
    for round_number in (1, 2):
        path.write_bytes(b"main %d" % round_number)
        path.with_name("state.sqlite3-wal").write_bytes(b"wal %d" % round_number)
        kept = move_aside(path, "corrupt-x")
        assert not path.exists() and not path.with_name("state.sqlite3-wal").exists()
        assert kept.read_bytes() == b"main %d" % round_number
        assert kept.with_name(kept.name + "-wal").read_bytes() == b"wal %d" % round_number
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "state.sqlite3.corrupt-x",
        "state.sqlite3.corrupt-x-2",
        "state.sqlite3.corrupt-x-2-wal",
        "state.sqlite3.corrupt-x-wal",
    ]
