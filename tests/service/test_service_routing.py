"""The freshness policy as a pure decision: which path answers, and when a stale index may."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from opindex.errors import (
    AuthenticationError,
    IndexUnavailableError,
    NotFoundError,
    ServerError,
    UpstreamUnavailableError,
)
from opindex.service.routing import choose_route, is_upstream_unavailable
from opindex.sync import Freshness, assess_freshness

NOW = datetime(2026, 4, 1, 12, 0, tzinfo=UTC)
HOUR = timedelta(hours=1)


def test_never_synced_is_missing() -> None:
    assert assess_freshness(None, max_staleness=HOUR, now=NOW) == Freshness("missing")


def test_age_below_max_staleness_is_fresh() -> None:
    indexed = NOW - timedelta(minutes=59)
    freshness = assess_freshness(indexed, max_staleness=HOUR, now=NOW)
    assert freshness.state == "fresh"
    assert freshness.age_seconds == 59 * 60
    assert freshness.indexed_at == indexed


def test_age_at_max_staleness_is_stale() -> None:
    freshness = assess_freshness(NOW - HOUR, max_staleness=HOUR, now=NOW)
    assert freshness.state == "stale"
    assert freshness.age_seconds == 3600


def test_naive_timestamps_are_utc_and_future_ones_have_age_zero() -> None:
    naive = (NOW + timedelta(minutes=5)).replace(tzinfo=None)
    freshness = assess_freshness(naive, max_staleness=HOUR, now=NOW)
    assert freshness.state == "fresh"
    assert freshness.age_seconds == 0.0
    assert freshness.indexed_at is not None and freshness.indexed_at.tzinfo is UTC


@pytest.mark.parametrize(
    ("state", "path", "stale_fallback"),
    [("fresh", "index", False), ("stale", "live", True), ("missing", "live", False)],
)
def test_auto_follows_the_policy(state: str, path: str, stale_fallback: bool) -> None:
    freshness = Freshness(state)  # type: ignore[arg-type]
    route = choose_route("auto", freshness)
    assert (route.path, route.stale_fallback) == (path, stale_fallback)
    assert route.freshness is freshness


@pytest.mark.parametrize("state", ["fresh", "stale", "missing"])
def test_live_is_always_live(state: str) -> None:
    route = choose_route("live", Freshness(state))  # type: ignore[arg-type]
    assert (route.path, route.stale_fallback) == ("live", False)


@pytest.mark.parametrize("state", ["fresh", "stale"])
def test_index_reads_any_existing_index(state: str) -> None:
    route = choose_route("index", Freshness(state))  # type: ignore[arg-type]
    assert route.path == "index"


def test_index_without_an_index_is_a_clear_error() -> None:
    with pytest.raises(IndexUnavailableError, match="no index yet"):
        choose_route("index", Freshness("missing"))


def test_only_unavailability_allows_the_stale_fallback() -> None:
    assert is_upstream_unavailable(UpstreamUnavailableError("timeout"))
    assert is_upstream_unavailable(ServerError("boom", status=503))
    assert not is_upstream_unavailable(AuthenticationError("no", status=401))
    assert not is_upstream_unavailable(NotFoundError("gone", status=404))
