"""StateStore: every method against a real SQLite file, and transaction atomicity."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest

from opindex.errors import InvalidArgumentError, StateError
from opindex.state import (
    CommitAgreement,
    IndexPointer,
    KindCounts,
    RecordVersion,
    StateStore,
    WikiDiscovery,
    WikiProbeRange,
    compare_commit,
)

T0 = datetime(2024, 5, 1, 12, 0, tzinfo=UTC)


class Clock:
    """A settable clock for the store."""

    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> datetime:
        self.now += timedelta(seconds=seconds)
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def store(tmp_path: Path, clock: Clock) -> Iterator[StateStore]:
    with StateStore.for_tenant(tmp_path / "data", "acme", clock=clock) as opened:
        yield opened


def reopen(store: StateStore) -> StateStore:
    return StateStore.open(store.path)


# --- runs ------------------------------------------------------------------------------


def test_run_lifecycle(store: StateStore, clock: Clock) -> None:
    run = store.start_run("incremental")
    assert (run.kind, run.outcome, run.started_at, run.finished_at) == (
        "incremental",
        "running",
        T0,
        None,
    )
    assert run.pid is not None and run.counts == {} and run.requests == 0
    clock.advance(30)
    counts = {"work_package": KindCounts(upserted=5, deleted=1), "meeting": KindCounts(2)}
    done = store.finish_run(run.id, counts=counts, requests=12, index_opstamp=7)
    assert done.outcome == "succeeded"
    assert done.finished_at == T0 + timedelta(seconds=30)
    assert done.duration_seconds == 30
    assert done.counts == counts and done.requests == 12 and done.index_opstamp == 7
    with reopen(store) as again:
        assert again.get_run(run.id) == done


def test_finishing_twice_or_unknown_run_is_refused(store: StateStore) -> None:
    run = store.start_run("full")
    store.finish_run(run.id)
    with pytest.raises(StateError, match=f"sync run {run.id}: it is succeeded"):
        store.fail_run(run.id, "late")
    with pytest.raises(StateError, match="sync run 999: it does not exist"):
        store.finish_run(999)
    assert store.get_run(999) is None


def test_failed_and_interrupted_runs(store: StateStore) -> None:
    failed = store.fail_run(store.start_run("full").id, "boom " * 2000, requests=3)
    assert failed.outcome == "failed" and failed.requests == 3
    assert failed.error is not None and len(failed.error) == 4000
    interrupted = store.fail_run(store.start_run("rebuild").id, "SIGTERM", interrupted=True)
    assert interrupted.outcome == "interrupted" and interrupted.error == "SIGTERM"


def test_mark_interrupted_runs(store: StateStore) -> None:
    first, second = store.start_run("full"), store.start_run("incremental")
    store.finish_run(second.id)
    assert store.mark_interrupted_runs() == 1
    marked = store.get_run(first.id)
    assert marked is not None and marked.outcome == "interrupted"
    assert marked.error == "the process ended before the run finished"
    assert store.mark_interrupted_runs() == 0


def test_latest_and_last_successful_runs(store: StateStore, clock: Clock) -> None:
    assert store.latest_run() is None and store.last_successful_run() is None
    full = store.start_run("full")
    incremental = store.start_run("incremental")
    clock.advance(10)
    store.finish_run(incremental.id)
    clock.advance(10)
    store.finish_run(full.id)  # started first, finished last
    failing = store.start_run("incremental")
    clock.advance(10)
    store.fail_run(failing.id, "down")

    latest = store.latest_run()
    assert latest is not None and latest.id == failing.id
    last_ok = store.last_successful_run()
    assert last_ok is not None and last_ok.id == full.id
    last_incremental = store.last_successful_run("incremental")
    assert last_incremental is not None and last_incremental.id == incremental.id
    assert store.last_successful_run("rebuild") is None
    assert [run.id for run in store.recent_runs()] == [failing.id, incremental.id, full.id]
    assert [run.id for run in store.recent_runs(limit=1, kind="full")] == [full.id]


def test_bad_run_arguments(store: StateStore) -> None:
    with pytest.raises(InvalidArgumentError):
        store.start_run("partial")  # type: ignore[arg-type]
    run = store.start_run("full")
    with pytest.raises(InvalidArgumentError):
        store.finish_run(run.id, requests=-1)
    with pytest.raises(InvalidArgumentError):
        store.finish_run(run.id, counts={"wiki_page": KindCounts(upserted=-1)})
    assert store.get_run(run.id) == run  # nothing was written


# --- high-water marks ------------------------------------------------------------------


def test_high_water_marks(store: StateStore) -> None:
    assert store.get_high_water("work_packages") is None
    store.set_high_water("work_packages", T0)
    plus_two = timezone(timedelta(hours=2))
    store.set_high_water("meetings", datetime(2024, 5, 1, 14, 0, tzinfo=plus_two))
    assert store.get_high_water("meetings") == T0
    store.set_high_water("work_packages", T0 - timedelta(minutes=5))  # may move back
    assert store.high_water_marks() == {
        "work_packages": T0 - timedelta(minutes=5),
        "meetings": T0,
    }
    store.clear_high_water("meetings")
    assert store.high_water_marks() == {"work_packages": T0 - timedelta(minutes=5)}
    store.clear_high_water()
    assert store.high_water_marks() == {}


def test_naive_timestamps_are_refused(store: StateStore) -> None:
    with pytest.raises(InvalidArgumentError, match="no time zone"):
        store.set_high_water("work_packages", datetime(2024, 1, 1))


# --- known records ---------------------------------------------------------------------


def test_known_records(store: StateStore, clock: Clock) -> None:
    assert store.upsert_known("wiki_page", [RecordVersion(1), RecordVersion(2, T0, "h2")]) == 2
    store.upsert_known("meeting", [RecordVersion(2)])
    clock.advance(60)
    store.upsert_known("wiki_page", [RecordVersion(2, T0 + timedelta(hours=1), "h2b")])

    assert store.known_ids("wiki_page") == {1, 2}
    record = store.get_known("wiki_page", 2)
    assert record is not None
    assert (record.updated_at, record.content_hash) == (T0 + timedelta(hours=1), "h2b")
    assert record.last_fetched_at == record.last_seen_at == T0 + timedelta(seconds=60)
    assert store.get_known("wiki_page", 3) is None
    assert store.count_known() == {"wiki_page": 2, "meeting": 1}

    clock.advance(60)
    assert store.mark_known_seen("wiki_page", [1, 99]) == 1
    one = store.known_records("wiki_page")[1]
    assert one.last_seen_at == T0 + timedelta(seconds=120)
    assert one.last_fetched_at == T0  # seeing is not re-reading

    due = store.known_not_fetched_since("wiki_page", T0 + timedelta(seconds=30))
    assert due == [1]
    assert store.known_not_fetched_since("wiki_page", clock.now) == [1, 2]
    assert store.known_not_fetched_since("wiki_page", clock.now, limit=1) == [1]

    assert store.delete_known("wiki_page", [1, 42]) == 1
    assert store.known_ids("wiki_page") == {2}
    assert store.clear_known("wiki_page") == 1
    assert store.count_known() == {"meeting": 1}
    assert store.clear_known() == 1
    assert store.count_known() == {}


def test_empty_kind_is_refused(store: StateStore) -> None:
    with pytest.raises(InvalidArgumentError):
        store.upsert_known("", [RecordVersion(1)])


# --- wiki discovery, capabilities, pointer ---------------------------------------------


def test_wiki_discovery(store: StateStore) -> None:
    assert store.get_wiki_discovery() == WikiDiscovery()
    early, late = T0 - timedelta(days=1), T0
    stored = store.set_wiki_discovery(
        WikiDiscovery(
            highest_id_seen=57,
            last_full_probe_at=early,
            probed_ranges=(
                WikiProbeRange(21, 40, late),
                WikiProbeRange(1, 20, early),  # adjacent: merged, older time kept
                WikiProbeRange(35, 45, late),  # overlapping
                WikiProbeRange(60, 80, late),
            ),
        )
    )
    assert stored.probed_ranges == (WikiProbeRange(1, 45, early), WikiProbeRange(60, 80, late))
    assert store.get_wiki_discovery() == stored
    store.set_wiki_discovery(WikiDiscovery(highest_id_seen=3))
    assert store.get_wiki_discovery() == WikiDiscovery(highest_id_seen=3)
    with pytest.raises(InvalidArgumentError):
        WikiProbeRange(5, 4, T0)


def test_capabilities(store: StateStore) -> None:
    assert store.get_capabilities() is None
    caps = store.set_capabilities({"meetings": True, "api_version": "13.1", "kinds": ["a"]})
    assert caps.detected_at == T0
    with reopen(store) as again:
        assert again.get_capabilities() == caps
    store.set_capabilities({"meetings": False}, detected_at=T0 + timedelta(days=1))
    latest = store.get_capabilities()
    assert latest is not None and dict(latest.data) == {"meetings": False}
    with pytest.raises(InvalidArgumentError, match="JSON"):
        store.set_capabilities({"when": T0})
    assert store.get_capabilities() == latest


def test_index_pointer_and_commit_agreement(store: StateStore) -> None:
    assert store.get_index_pointer() is None
    assert compare_commit(None, None) is CommitAgreement.NO_POINTER
    pointer = IndexPointer("index-0001", schema_version=2, opstamp=12, committed_at=T0)
    store.set_index_pointer(pointer)
    assert store.get_index_pointer() == pointer
    assert compare_commit(12, pointer) is CommitAgreement.IN_SYNC
    assert compare_commit(13, pointer) is CommitAgreement.INDEX_AHEAD
    assert compare_commit(11, pointer) is CommitAgreement.INDEX_BEHIND
    assert compare_commit(None, pointer) is CommitAgreement.INDEX_BEHIND
    moved = IndexPointer("index-0002", schema_version=3, opstamp=1, committed_at=T0)
    store.set_index_pointer(moved)
    assert store.get_index_pointer() == moved


# --- transactions ----------------------------------------------------------------------


def test_transaction_commits_everything_together(store: StateStore) -> None:
    run = store.start_run("incremental")
    with store.transaction():
        store.set_high_water("work_packages", T0)
        store.upsert_known("work_package", [RecordVersion(1)])
        store.set_index_pointer(IndexPointer("index", 1, 5, T0))
        store.finish_run(run.id, index_opstamp=5)
        with reopen(store) as other:  # another connection sees nothing before COMMIT
            assert other.get_high_water("work_packages") is None
            assert other.get_index_pointer() is None
    with reopen(store) as other:
        assert other.get_high_water("work_packages") == T0
        assert other.known_ids("work_package") == {1}
        assert other.latest_run() == store.get_run(run.id)


def test_exception_inside_transaction_writes_nothing(store: StateStore) -> None:
    run = store.start_run("incremental")
    with pytest.raises(RuntimeError, match="index commit failed"), store.transaction():
        store.set_high_water("work_packages", T0)
        store.upsert_known("work_package", [RecordVersion(1)])
        store.set_wiki_discovery(WikiDiscovery(highest_id_seen=9))
        store.set_index_pointer(IndexPointer("index", 1, 5, T0))
        store.finish_run(run.id)
        raise RuntimeError("index commit failed")
    assert store.get_high_water("work_packages") is None
    assert store.known_ids("work_package") == set()
    assert store.get_wiki_discovery() == WikiDiscovery()
    assert store.get_index_pointer() is None
    still = store.get_run(run.id)
    assert still is not None and still.outcome == "running"
    store.set_high_water("meetings", T0)  # the store is usable afterwards
    assert store.get_high_water("meetings") == T0


def test_state_error_inside_transaction_rolls_back_earlier_changes(store: StateStore) -> None:
    with pytest.raises(StateError), store.transaction():
        store.set_high_water("work_packages", T0)
        store.finish_run(12345)  # unknown run
    assert store.high_water_marks() == {}


def test_nested_transaction_is_a_savepoint(store: StateStore) -> None:
    with store.transaction():
        store.set_high_water("outer", T0)
        with pytest.raises(ValueError), store.transaction():
            store.set_high_water("inner", T0)
            raise ValueError("inner only")
        with store.transaction():
            store.set_high_water("second_inner", T0)
    assert set(store.high_water_marks()) == {"outer", "second_inner"}


def test_store_can_be_shared_between_threads(store: StateStore) -> None:
    errors: list[BaseException] = []

    def work(offset: int) -> None:
        try:
            for i in range(20):
                store.upsert_known("work_package", [RecordVersion(offset + i)])
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(n * 100,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert len(store.known_ids("work_package")) == 80


def test_closed_store_raises_state_error(tmp_path: Path) -> None:
    store = StateStore.open(tmp_path / "s.sqlite3")
    store.close()
    with pytest.raises(StateError):
        store.latest_run()
