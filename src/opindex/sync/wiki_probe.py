"""Wiki page discovery by id probing, for servers without a wiki list endpoint.

Released OpenProject servers only answer ``GET /api/v3/wiki_pages/{id}``. Page ids are
one global sequence shared by every project, so the pages one account sees are spread
out with gaps (deleted pages, pages of projects it cannot see). Discovery therefore
probes ids upwards and stops only after a run of consecutive misses that grows with
the highest id found (``miss_limit``), never before the highest id already known.

A *pass* probes every id from 1 to that stopping point. A full sync runs a whole pass;
incremental runs re-run a pass once per wiki refresh interval, a bounded number of ids
per run, resuming where the previous run stopped (recorded as the probed range).
Between passes, each run probes a few ids above the highest page (new pages).
"""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable, Collection, Mapping
from dataclasses import dataclass, field
from datetime import datetime

from opindex.errors import NotFoundError, PermissionDeniedError
from opindex.openproject import WikiPage
from opindex.state import KnownRecord, WikiDiscovery, WikiProbeRange

FRONTIER = 16
"""Ids above the highest known page probed by every incremental run between passes (one
batch): page ids are one sequence across projects, so a new page the account sees often
lies a few ids above pages of projects it cannot see."""
MIN_MISS_LIMIT = 128
"""Never below the live path's default miss run (100): the index must not see less than it."""
MAX_MISS_LIMIT = 1000
GAP_PROBES_PER_RUN = 500
"""Unknown ids an incremental run probes at most while a discovery pass is due."""
PROBE_BATCH = 16

Probe = Callable[[list[int]], Awaitable[list[WikiPage | None]]]


def miss_limit(highest: int | None) -> int:
    """Consecutive misses after which a pass ends: a tenth of the highest id, bounded."""
    return max(MIN_MISS_LIMIT, min(MAX_MISS_LIMIT, (highest or 0) // 10))


@dataclass
class ScanResult:
    """What one scan found: pages by id, ids that answered 404, and where it stopped."""

    pages: dict[int, WikiPage] = field(default_factory=dict)
    misses: set[int] = field(default_factory=set)
    last_probed: int = 0
    complete: bool = False


async def scan(
    probe: Probe,
    *,
    start: int,
    floor: int,
    misses_to_stop: Callable[[int | None], int],
    budget: int | None,
    skip: Collection[int] = (),
    highest: int | None = None,
) -> ScanResult:
    """Probe ids from ``start`` upwards in batches.

    Stops (``complete``) once past ``floor`` after ``misses_to_stop(highest)``
    consecutive misses, or (not complete) when ``budget`` probes were spent. Ids in
    ``skip`` are known pages: not probed, but they count as hits for the stopping rule.
    """
    result = ScanResult(last_probed=start - 1)
    in_a_row = 0
    spent = 0
    next_id = start
    while True:
        batch: list[int] = []
        while len(batch) < PROBE_BATCH and (budget is None or spent + len(batch) < budget):
            if next_id in skip:
                highest = max(highest or 0, next_id)
                in_a_row = 0
            else:
                batch.append(next_id)
            next_id += 1
            if _stop(next_id - 1, floor, in_a_row + len(batch), misses_to_stop(highest)):
                break
        if not batch:
            result.complete = budget is None or spent < budget
            result.last_probed = next_id - 1
            return result
        answers = await probe(batch)
        spent += len(batch)
        for page_id, page in zip(batch, answers, strict=True):
            result.last_probed = page_id
            if page is None:
                result.misses.add(page_id)
                in_a_row += 1
            else:
                result.pages[page_id] = page
                highest = max(highest or 0, page_id)
                in_a_row = 0
        if _stop(result.last_probed, floor, in_a_row, misses_to_stop(highest)):
            result.complete = True
            return result
        if budget is not None and spent >= budget:
            return result


def _stop(position: int, floor: int, in_a_row: int, limit: int) -> bool:
    return position >= floor and in_a_row >= limit


async def probe_one(fetch: Callable[[int], Awaitable[WikiPage]], page_id: int) -> WikiPage | None:
    """One probe: the page, or None when it does not exist or is not visible."""
    try:
        return await fetch(page_id)
    except (NotFoundError, PermissionDeniedError):
        return None


def refresh_slice(
    known: Mapping[int, KnownRecord],
    *,
    now: datetime,
    interval_seconds: int,
    last_run_at: datetime | None,
) -> list[int]:
    """The known pages to re-read this run, least recently read first.

    Every page older than the interval, and at least the share of all pages that the
    time since the last successful run ended (``last_run_at``) represents of the
    interval, so that each page is re-read within the interval when runs are regular.
    """
    if not known:
        return []
    ordered = sorted(known.values(), key=lambda record: (record.last_fetched_at, record.id))
    overdue = sum(
        1
        for record in ordered
        if (now - record.last_fetched_at).total_seconds() >= interval_seconds
    )
    if last_run_at is None:
        elapsed = float(interval_seconds)
    else:
        elapsed = max(0.0, (now - last_run_at).total_seconds())
    share = math.ceil(len(ordered) * min(1.0, elapsed / interval_seconds))
    return [record.id for record in ordered[: max(overdue, share)]]


@dataclass(frozen=True, slots=True)
class PassPosition:
    """Whether a discovery pass is due, and the last id it already covered."""

    due: bool
    resume_after: int
    started_at: datetime | None


def pass_position(
    discovery: WikiDiscovery, *, now: datetime, interval_seconds: int
) -> PassPosition:
    """Read the pass progress from the discovery state.

    A pass in progress is recorded as one probed range ``1..n`` stamped with the pass's
    start, newer than ``last_full_probe_at``; a finished pass sets both to the same time.
    """
    finished = discovery.last_full_probe_at
    ranges = discovery.probed_ranges
    if ranges and ranges[0].first_id == 1 and (finished is None or ranges[0].probed_at > finished):
        return PassPosition(True, ranges[0].last_id, ranges[0].probed_at)
    due = finished is None or (now - finished).total_seconds() >= interval_seconds
    return PassPosition(due, 0, None)


def after_pass(
    discovery: WikiDiscovery,
    *,
    highest: int | None,
    last_probed: int,
    complete: bool,
    started_at: datetime,
    now: datetime,
) -> WikiDiscovery:
    """The discovery state after (part of) a pass."""
    if last_probed < 1:
        return WikiDiscovery(highest, discovery.last_full_probe_at, discovery.probed_ranges)
    if complete:
        return WikiDiscovery(highest, now, (WikiProbeRange(1, last_probed, now),))
    progress = WikiProbeRange(1, last_probed, started_at)
    return WikiDiscovery(highest, discovery.last_full_probe_at, (progress,))
