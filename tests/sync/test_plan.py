"""What a run decides to do from the live index and the state (pure logic)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from opindex.errors import IndexNeedsRebuildError, IndexUnavailableError
from opindex.state import IndexPointer
from opindex.sync.plan import SyncPlan, decide

POINTER = IndexPointer("g000002", 1, 40, datetime(2026, 3, 1, tzinfo=UTC))


def plan(
    requested: str = "incremental",
    *,
    live: str | None = "g000002",
    problem: IndexUnavailableError | None = None,
    opstamp: int | None = 40,
    pointer: IndexPointer | None = POINTER,
    sweep_due: bool = False,
) -> SyncPlan:
    return decide(
        requested,  # type: ignore[arg-type]
        live_generation=live,
        live_problem=problem,
        live_opstamp=opstamp,
        pointer=pointer,
        sweep_due=sweep_due,
    )


def test_in_sync_state_allows_an_incremental_run_trusting_known_records() -> None:
    result = plan()
    assert (result.run_kind, result.full, result.new_generation) == ("incremental", False, False)
    assert result.trust_known and not result.sweep
    assert plan(sweep_due=True).sweep


def test_full_request_rereads_but_keeps_the_live_generation() -> None:
    result = plan("full")
    assert (result.run_kind, result.full, result.new_generation) == ("full", True, False)
    assert result.trust_known


def test_rebuild_always_builds_a_new_generation() -> None:
    result = plan("rebuild")
    assert (result.run_kind, result.full, result.new_generation) == ("rebuild", True, True)
    assert not result.trust_known


@pytest.mark.parametrize(
    ("live", "problem"),
    [
        (None, None),
        ("g000002", IndexNeedsRebuildError("schema 0", found_version=0)),
        ("g000002", IndexUnavailableError("corrupt meta.json")),
    ],
)
def test_missing_or_unusable_index_gets_a_fresh_generation(
    live: str | None, problem: IndexUnavailableError | None
) -> None:
    result = plan(live=live, problem=problem, opstamp=None)
    assert (result.run_kind, result.full, result.new_generation) == ("full", True, True)
    if problem is not None:
        assert str(problem) in result.reason


def test_index_ahead_of_state_is_repaired_from_the_older_marks() -> None:
    result = plan(opstamp=41)
    assert (result.run_kind, result.full, result.new_generation) == ("incremental", False, False)
    assert result.sweep and not result.trust_known
    assert "interrupted" in result.reason


@pytest.mark.parametrize(
    ("opstamp", "pointer", "live"),
    [
        (39, POINTER, "g000002"),  # index lost commits
        (40, None, "g000002"),  # state lost
        (40, POINTER, "g000003"),  # state describes another generation
    ],
)
def test_state_not_describing_the_index_forces_a_full_read(
    opstamp: int, pointer: IndexPointer | None, live: str
) -> None:
    result = plan(opstamp=opstamp, pointer=pointer, live=live)
    assert (result.run_kind, result.full, result.new_generation) == ("full", True, False)
    assert not result.trust_known
