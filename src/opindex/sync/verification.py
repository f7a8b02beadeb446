"""Re-reading a tenant's live index generation against its checksums, at a bounded rate.

Readers verify a generation when they open it and the files of each new commit, so
damage that appears later in a file already read (a failing disk, a stray write) would
stay unnoticed until Tantivy trips over it. The server's daemon therefore re-reads every
file of each tenant's live generation now and then, at most ``bytes_per_second``, so the
check never competes with searches for the disk; damage found is recorded (``DAMAGED``)
and the daemon syncs the tenant at once, which builds a new generation.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Final

from opindex.errors import IndexDamagedError, IndexUnavailableError
from opindex.index import (
    VERIFY_INTERVAL_SECONDS,
    Pace,
    mark_damaged,
    recorded_damage,
    reread_generation,
)
from opindex.sync.locations import index_directory

__all__ = [
    "VERIFY_BYTES_PER_SECOND",
    "VERIFY_INTERVAL_SECONDS",  # how often the daemon re-reads each live generation
    "Pacer",
    "verify_live_generation",
]
VERIFY_BYTES_PER_SECOND: Final = 16 * 1024 * 1024
"""The daemon's reading rate while verifying (a 100k-document index takes seconds)."""


class Pacer:
    """Sleeps as needed so the bytes reported never run ahead of ``bytes_per_second``."""

    def __init__(
        self,
        bytes_per_second: int,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if bytes_per_second < 1:
            raise ValueError("bytes_per_second must be at least 1")
        self._rate = bytes_per_second
        self._clock = clock
        self._sleep = sleep
        self._start = clock()
        self._bytes = 0

    def __call__(self, count: int) -> None:
        self._bytes += count
        ahead = self._bytes / self._rate - (self._clock() - self._start)
        if ahead > 0:
            self._sleep(ahead)


def verify_live_generation(
    data_dir: Path, tenant: str, *, pace: Pace | None = None
) -> IndexDamagedError | None:
    """Re-read every file of the tenant's live generation; the damage found (recorded in
    the generation), or None when it is sound, unverifiable or absent."""
    directory = index_directory(data_dir, tenant)
    try:
        name = directory.current()
    except IndexUnavailableError:  # an unreadable pointer is reported by status, not here
        return None
    if name is None:
        return None
    path = directory.generation_path(name)
    recorded = recorded_damage(path)
    if recorded is not None:
        return recorded
    try:
        reread_generation(path, pace=pace)
    except IndexDamagedError as damage:
        try:
            replaced = directory.current() != name  # a rebuild published and cleans up
        except IndexUnavailableError:
            replaced = True
        if replaced:
            return None
        mark_damaged(path, damage)
        return damage
    return None
