"""Opening a tenant's state database for a sync or rebuild: checked, and moved aside by a
rebuild when it is damaged."""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from opindex.errors import StateCorruptError
from opindex.state import StateStore
from opindex.state.paths import move_aside, state_db_path

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
