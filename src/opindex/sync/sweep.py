"""Removing work packages the manifest no longer lists (there is no delete feed).

OpenProject hard-deletes work packages and answers 404 alike for deleted and no longer
visible ones, so the only signal is absence from a complete id listing. A listing walked
by page offset can skip a row when an earlier row disappears mid-walk, so an id missing
from the listing is removed only after a direct ``id =`` query confirms it is gone.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable
from datetime import datetime

from opindex.sync.sync_session import SyncSession
from opindex.sync.work_packages import KIND, existing_work_package_ids, fetch_work_packages

logger = logging.getLogger(__name__)


def sweep_due(last_sweep: datetime | None, interval_seconds: int, now: datetime) -> bool:
    """Whether a run must take the complete listing now (the sweep interval is over)."""
    return last_sweep is None or (now - last_sweep).total_seconds() >= interval_seconds


async def remove_vanished(session: SyncSession, on_server: Iterable[int]) -> int:
    """Remove indexed or known work packages absent from a complete listing, once a
    direct query confirms each is really gone. Returns how many were removed."""
    listed = set(on_server)
    indexed = set(await asyncio.to_thread(session.index.all_ids, KIND))
    candidates = sorted((indexed | set(session.known_of(KIND))) - listed)
    if not candidates:
        return 0
    still_there = await existing_work_package_ids(session, candidates)
    if still_there:
        logger.info(
            "%d work packages missing from the listing still exist (listing shifted)",
            len(still_there),
        )
        await fetch_work_packages(session, sorted(still_there))
    gone = [wp_id for wp_id in candidates if wp_id not in still_there]
    return await session.remove(KIND, gone)
