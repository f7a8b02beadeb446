"""Wiki discovery by id probing: stopping rule, gaps, budgets, resumable passes, slices."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from opindex.openproject import WikiPage
from opindex.state import KnownRecord, WikiDiscovery, WikiProbeRange
from opindex.sync import wiki_probe
from opindex.sync.wiki_probe import miss_limit, pass_position, refresh_slice, scan

NOW = datetime(2026, 3, 10, 12, 0, tzinfo=UTC)


class FakeServer:
    """Answers probes for a fixed set of page ids and counts every probe."""

    def __init__(self, ids: set[int]) -> None:
        self.ids = ids
        self.probed: list[int] = []

    async def __call__(self, batch: list[int]) -> list[WikiPage | None]:
        self.probed.extend(batch)
        return [WikiPage(id=i, title=f"p{i}") if i in self.ids else None for i in batch]


async def test_scan_crosses_gaps_shorter_than_the_miss_limit() -> None:
    pages = {1, 2, 40, 41, 100, 160}  # gaps of 37, 58 and 59 ids
    server = FakeServer(pages)
    result = await scan(server, start=1, floor=0, misses_to_stop=miss_limit, budget=None)
    assert set(result.pages) == pages
    assert result.complete
    assert result.last_probed >= 160 + miss_limit(160)
    assert result.last_probed < 160 + miss_limit(160) + wiki_probe.PROBE_BATCH
    assert result.misses == set(range(1, result.last_probed + 1)) - pages


async def test_scan_gives_up_after_a_gap_longer_than_the_miss_limit() -> None:
    far = 41 + miss_limit(41) + wiki_probe.PROBE_BATCH + 1
    server = FakeServer({1, 41, far})
    result = await scan(server, start=1, floor=0, misses_to_stop=miss_limit, budget=None)
    assert set(result.pages) == {1, 41} and result.complete
    assert max(server.probed) < far


async def test_scan_never_stops_below_the_floor() -> None:
    server = FakeServer({1, 300})
    result = await scan(server, start=1, floor=300, misses_to_stop=lambda _: 5, budget=None)
    assert set(result.pages) == {1, 300}
    assert 300 + 5 <= result.last_probed < 300 + 5 + wiki_probe.PROBE_BATCH


async def test_miss_limit_grows_with_the_highest_id_within_bounds() -> None:
    assert miss_limit(None) == wiki_probe.MIN_MISS_LIMIT
    assert miss_limit(2_000) == 200
    assert miss_limit(10**9) == wiki_probe.MAX_MISS_LIMIT


async def test_budgeted_scan_stops_incomplete_and_skips_known_ids() -> None:
    server = FakeServer({3, 9, 20})
    result = await scan(
        server,
        start=1,
        floor=0,
        misses_to_stop=lambda _: 50,
        budget=10,
        skip={9},
        highest=9,
    )
    assert not result.complete
    assert 9 not in server.probed and len(server.probed) == 10
    assert set(result.pages) == {3}
    assert result.last_probed == 11


def _known(page_id: int, fetched_ago: timedelta) -> KnownRecord:
    moment = NOW - fetched_ago
    return KnownRecord("wiki_page", page_id, None, "h", moment, moment)


def test_refresh_slice_takes_overdue_pages_and_a_time_share() -> None:
    known = {i: _known(i, timedelta(hours=i)) for i in range(1, 101)}  # page i read i h ago
    day = 86_400
    # Pages read 24 h ago or earlier are overdue: 77 of them (24..100).
    due = refresh_slice(known, now=NOW, interval_seconds=day, last_run_at=NOW)
    assert sorted(due) == list(range(24, 101))
    # Nothing overdue, one hour since the last run: ceil(100 / 24) pages, oldest first.
    fresh = {i: _known(i, timedelta(minutes=i)) for i in range(1, 101)}
    share = refresh_slice(
        fresh, now=NOW, interval_seconds=day, last_run_at=NOW - timedelta(hours=1)
    )
    assert share == [100, 99, 98, 97, 96]


def test_pass_position_resumes_an_unfinished_pass() -> None:
    finished = NOW - timedelta(days=2)
    idle = WikiDiscovery(90, finished, (WikiProbeRange(1, 150, finished),))
    assert pass_position(idle, now=NOW, interval_seconds=10 * 86_400).due is False
    due = pass_position(idle, now=NOW, interval_seconds=86_400)
    assert (due.due, due.resume_after) == (True, 0)

    started = NOW - timedelta(hours=1)
    unfinished = WikiDiscovery(90, finished, (WikiProbeRange(1, 40, started),))
    position = pass_position(unfinished, now=NOW, interval_seconds=10 * 86_400)
    assert (position.due, position.resume_after, position.started_at) == (True, 40, started)

    after = wiki_probe.after_pass(
        unfinished, highest=95, last_probed=200, complete=True, started_at=started, now=NOW
    )
    assert after.last_full_probe_at == NOW and after.probed_ranges[0].last_id == 200
    assert pass_position(after, now=NOW, interval_seconds=86_400).due is False
