"""Per-tenant sync lock, so the daemon and a cron ``opindex sync`` never sync at once.

The lock is an exclusive ``flock`` on ``<data_dir>/<tenant>/sync.lock``. The operating
system releases it when the holder exits or is killed, so a crashed sync never leaves a
stale lock behind. While held, the file records who holds it (pid, purpose, since when),
for the message another process gets and for status reports; the file itself is never
deleted (deleting a lock file races with a process about to lock it).

:func:`is_locked` probes with a shared lock held for an instant. A :func:`tenant_lock`
attempt that collides with such a probe retries for a short while before it concludes
that a sync is really running.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from opindex.errors import StateError, SyncInProgressError
from opindex.state.paths import PRIVATE_FILE_MODE, ensure_tenant_directory, lock_file_path
from opindex.state.state_values import from_text, to_text, utc_now

_PROBE_RETRIES = 20
_PROBE_RETRY_SECONDS = 0.01


@dataclass(frozen=True, slots=True)
class LockHolder:
    """Who holds a tenant's sync lock, as recorded in the lock file."""

    pid: int
    purpose: str
    since: datetime


@contextlib.contextmanager
def tenant_lock(data_dir: Path, tenant: str, *, purpose: str = "sync") -> Iterator[LockHolder]:
    """Hold the tenant's sync lock for the duration of the block.

    ``purpose`` ("sync", "rebuild", ...) is recorded for other processes to see. Raises
    SyncInProgressError naming the tenant (and the holder's pid and start time when
    recorded) if another process or another block in this process holds it, and
    StateError if the lock file cannot be created.
    """
    ensure_tenant_directory(data_dir, tenant)
    path = lock_file_path(data_dir, tenant)
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, PRIVATE_FILE_MODE)
    except OSError as exc:
        raise StateError(f"cannot open lock file {path}: {exc.strerror or exc}") from exc
    try:
        if not _try_lock(fd, fcntl.LOCK_EX, retries=_PROBE_RETRIES):
            raise SyncInProgressError(_held_message(tenant, path, _read_holder(fd)))
        holder = LockHolder(pid=os.getpid(), purpose=purpose, since=utc_now())
        _write_holder(fd, holder)
        try:
            yield holder
        finally:
            with contextlib.suppress(OSError):
                os.ftruncate(fd, 0)
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def is_locked(data_dir: Path, tenant: str) -> bool:
    """True if some process (this one included) holds the tenant's sync lock right now."""
    return _inspect(data_dir, tenant)[0]


def lock_holder(data_dir: Path, tenant: str) -> LockHolder | None:
    """Who holds the tenant's lock, if it is held and the holder recorded itself."""
    return _inspect(data_dir, tenant)[1]


def _inspect(data_dir: Path, tenant: str) -> tuple[bool, LockHolder | None]:
    path = lock_file_path(data_dir, tenant)
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return False, None  # never locked: no lock file yet
    try:
        if _try_lock(fd, fcntl.LOCK_SH, retries=0):
            fcntl.flock(fd, fcntl.LOCK_UN)
            return False, None  # not held: whatever the file says is stale
        return True, _read_holder(fd)
    finally:
        os.close(fd)


def _try_lock(fd: int, operation: int, *, retries: int) -> bool:
    for attempt in range(retries + 1):
        try:
            fcntl.flock(fd, operation | fcntl.LOCK_NB)
        except BlockingIOError:
            if attempt < retries:
                time.sleep(_PROBE_RETRY_SECONDS)
            continue
        return True
    return False


def _write_holder(fd: int, holder: LockHolder) -> None:
    record = {"pid": holder.pid, "purpose": holder.purpose, "since": to_text(holder.since)}
    data = json.dumps(record).encode()
    with contextlib.suppress(OSError):  # the lock works without the record
        os.ftruncate(fd, 0)
        os.pwrite(fd, data, 0)


def _read_holder(fd: int) -> LockHolder | None:
    try:
        record = json.loads(os.pread(fd, 4096, 0).decode())
        return LockHolder(int(record["pid"]), str(record["purpose"]), from_text(record["since"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None  # not written yet, or being rewritten


def _held_message(tenant: str, path: Path, holder: LockHolder | None) -> str:
    message = f"tenant {tenant!r} is already being synced"
    if holder is not None:
        since = holder.since.strftime("%Y-%m-%d %H:%M:%S UTC")
        message += f" ({holder.purpose} by process {holder.pid} since {since})"
    return f"{message}; lock file {path}"
