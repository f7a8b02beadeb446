"""A sync's state database: opened checked (a rebuild moves a damaged one aside), and a
failed run recorded in it."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from opindex.errors import OpindexError, StateCorruptError
from opindex.state import StateStore, move_aside, state_db_path
from opindex.sync.changes import PendingChanges

logger = logging.getLogger(__name__)


def open_state(
    tenant: str, data_dir: Path, *, rebuild: bool, clock: Callable[[], datetime]
) -> StateStore:
    """The tenant's state database, after SQLite's ``quick_check`` and a decode of its
    small tables. A rebuild moves a damaged one aside (kept, renamed
    ``state.sqlite3.corrupt-<time>``) and starts a fresh one: everything in it is derived
    from OpenProject, which the rebuild reads again in full; a sync refuses it
    (StateCorruptError saying to rebuild)."""
    try:
        return _checked_state(tenant, data_dir, clock)
    except StateCorruptError as exc:
        if not rebuild:
            raise
        stamp = clock().strftime("%Y%m%dT%H%M%SZ")
        kept = move_aside(state_db_path(data_dir, tenant), f"corrupt-{stamp}")
        logger.warning("%s: %s; moved it to %s, starting a fresh one", tenant, exc, kept)
        return StateStore.for_tenant(data_dir, tenant, clock=clock)


def _checked_state(tenant: str, data_dir: Path, clock: Callable[[], datetime]) -> StateStore:
    state = StateStore.for_tenant(data_dir, tenant, clock=clock, check="quick")
    try:
        state.check_rows()
    except StateCorruptError:
        state.close()
        raise
    return state


def record_failure(
    state: StateStore,
    run_id: int,
    exc: BaseException,
    changes: PendingChanges,
    requests: int,
    *,
    final: bool = False,
) -> bool:
    """Record the run as failed (or interrupted); False if the record could not be
    written (logged as an error when ``final``)."""
    interrupted = isinstance(exc, KeyboardInterrupt | asyncio.CancelledError | SystemExit)
    reason = "interrupted" if interrupted and not str(exc) else f"{type(exc).__name__}: {exc}"
    try:
        state.fail_run(
            run_id, reason, counts=changes.counts(), requests=requests, interrupted=interrupted
        )
    except OpindexError as state_problem:
        if final:
            logger.error("could not record the failed run %d: %s", run_id, state_problem)
        return False
    return True
