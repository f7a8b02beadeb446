"""Per-tenant sync lock: exclusive across processes, released when the holder dies."""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from opindex.errors import InvalidArgumentError, SyncInProgressError
from opindex.state import is_locked, lock_file_path, lock_holder, tenant_lock

HOLDER_SCRIPT = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from opindex.state.lock import tenant_lock

    with tenant_lock(Path(sys.argv[1]), sys.argv[2], purpose="rebuild"):
        print("locked", flush=True)
        time.sleep(600)
    """
)


@pytest.fixture
def holder(tmp_path: Path) -> Iterator[subprocess.Popen[str]]:
    """Another process holding tenant 'acme''s lock until it is killed."""
    process = subprocess.Popen(
        [sys.executable, "-c", HOLDER_SCRIPT, str(tmp_path), "acme"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        assert process.stdout.readline().strip() == "locked"
        yield process
    finally:
        if process.poll() is None:
            process.kill()
        process.wait()
        if process.stdout is not None:
            process.stdout.close()


def test_lock_is_exclusive_within_a_process(tmp_path: Path) -> None:
    assert not is_locked(tmp_path, "acme")
    with tenant_lock(tmp_path, "acme") as held:
        assert held.pid == os.getpid() and held.purpose == "sync"
        assert is_locked(tmp_path, "acme")
        assert lock_holder(tmp_path, "acme") == held
        with pytest.raises(SyncInProgressError) as caught, tenant_lock(tmp_path, "acme"):
            pass
        message = str(caught.value)
        assert "tenant 'acme' is already being synced" in message
        assert f"process {os.getpid()}" in message and "since" in message
        with tenant_lock(tmp_path, "other"):  # tenants are independent
            assert is_locked(tmp_path, "other")
    assert not is_locked(tmp_path, "acme")
    assert lock_holder(tmp_path, "acme") is None
    with tenant_lock(tmp_path, "acme"):  # released: can be taken again
        pass


def test_lock_across_processes_and_release_on_sigkill(
    tmp_path: Path, holder: subprocess.Popen[str]
) -> None:
    assert is_locked(tmp_path, "acme")
    recorded = lock_holder(tmp_path, "acme")
    assert recorded is not None
    assert (recorded.pid, recorded.purpose) == (holder.pid, "rebuild")
    expected = f"rebuild by process {holder.pid} since"
    with pytest.raises(SyncInProgressError, match=expected), tenant_lock(tmp_path, "acme"):
        pass

    holder.send_signal(signal.SIGKILL)
    holder.wait()

    assert not is_locked(tmp_path, "acme")
    assert lock_holder(tmp_path, "acme") is None  # the dead holder's record is stale
    with tenant_lock(tmp_path, "acme") as held:
        assert held.pid == os.getpid()


def test_lock_file_is_private_and_kept(tmp_path: Path) -> None:
    with tenant_lock(tmp_path / "data", "acme"):
        pass
    path = lock_file_path(tmp_path / "data", "acme")
    assert path.exists()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert path.read_text() == ""  # no stale holder record after release


def test_status_probe_does_not_create_anything(tmp_path: Path) -> None:
    assert not is_locked(tmp_path / "absent", "acme")
    assert not (tmp_path / "absent").exists()


def test_invalid_tenant_name(tmp_path: Path) -> None:
    with pytest.raises(InvalidArgumentError), tenant_lock(tmp_path, "../x"):
        pass
