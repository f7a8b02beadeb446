"""Test seam: SIGKILL this process at a named commit boundary (``OPINDEX_TEST_KILL_AT``).

Reliability tests need to kill a sync or rebuild exactly between two of its commits,
which a kill from outside hits only by luck. The commit protocol calls :func:`reached`
right after each boundary (ARCHITECTURE invariant 6); with the environment variable
``OPINDEX_TEST_KILL_AT=<boundary>:<n>`` set, the process kills itself with SIGKILL the
*n*-th time (counted from 1) it reaches ``<boundary>``. ``OPINDEX_TEST_KILL_LOG=<file>``
appends one line ``<boundary>:<n>`` per boundary reached (to enumerate a run's
boundaries). Unset, as in every real deployment, :func:`reached` only reads the
environment and returns.
"""

from __future__ import annotations

import os
import signal
import threading
from typing import Final, Literal

from opindex.errors import ConfigError

Boundary = Literal[
    "tantivy-commit", "analysis-commit", "checksums", "state-commit", "current-switch"
]
BOUNDARIES: Final[tuple[Boundary, ...]] = (
    "tantivy-commit",  # Tantivy's meta.json names the new commit
    "analysis-commit",  # the analysis store's manifest names it too
    "checksums",  # checksums.json describes it
    "state-commit",  # a state database transaction committed
    "current-switch",  # CURRENT names a newly published generation
)
KILL_AT_ENV: Final = "OPINDEX_TEST_KILL_AT"
KILL_LOG_ENV: Final = "OPINDEX_TEST_KILL_LOG"

_counts: dict[str, int] = {}
_lock = threading.Lock()


def parse_kill_at(value: str) -> tuple[Boundary, int]:
    """``"<boundary>:<n>"`` as (boundary, n); ConfigError naming what is wrong."""
    name, _, count = value.partition(":")
    boundary = next((known for known in BOUNDARIES if known == name), None)
    if boundary is None or not count.isdigit() or int(count) < 1:
        raise ConfigError(
            f"{KILL_AT_ENV}={value!r}: expected <boundary>:<n> with n >= 1 and a boundary "
            f"among {', '.join(BOUNDARIES)}"
        )
    return boundary, int(count)


def reached(boundary: Boundary) -> None:
    """Count *boundary*; SIGKILL this process if ``OPINDEX_TEST_KILL_AT`` names this one."""
    kill_at = os.environ.get(KILL_AT_ENV)
    log = os.environ.get(KILL_LOG_ENV)
    if not kill_at and not log:
        return
    with _lock:
        count = _counts[boundary] = _counts.get(boundary, 0) + 1
        if log:
            with open(log, "a", encoding="utf-8") as handle:
                handle.write(f"{boundary}:{count}\n")
        if kill_at and parse_kill_at(kill_at) == (boundary, count):
            os.kill(os.getpid(), signal.SIGKILL)
