"""The checkpointer on its own: due by records or by time (injected clock), what it stores."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from tests.index.index_fixtures import work_package

from opindex.index import IndexDirectory, TenantIndex
from opindex.state import RecordVersion, StateStore
from opindex.sync.changes import PendingChanges
from opindex.sync.checkpoints import Checkpointer, find_resume

T0 = datetime(2026, 6, 1, 8, 0, tzinfo=UTC)


class _Clock:
    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> datetime:
        return self.now


def _read(changes: PendingChanges, index: TenantIndex, ids: range) -> None:
    """What the manifest step does for ``ids``: index them and note their versions."""
    index.upsert([work_package(i, f"Task {i}", updated_at=T0) for i in ids])
    for i in ids:
        changes.fetched("work_package", RecordVersion(i, T0, f"h{i}"), written=True)


async def test_checkpoints_are_due_by_records_or_by_time_and_resumable(tmp_path: Path) -> None:
    directory = IndexDirectory(tmp_path / "index")
    clock = _Clock()
    changes = PendingChanges(replace_known=True)
    with (
        StateStore.open(tmp_path / "state.sqlite3") as state,
        TenantIndex.create_generation(directory) as index,
    ):
        checkpointer = Checkpointer(
            state, index, changes, "full", T0, clock, every_records=10, every_seconds=30
        )
        _read(changes, index, range(1, 6))
        await checkpointer(5, 0, 40)
        assert state.get_checkpoint() is None  # 5 records, no time passed: not due

        _read(changes, index, range(6, 11))
        await checkpointer(10, 0, 40)  # 10 records: due
        first = state.get_checkpoint()
        assert first is not None and (first.records_done, first.records_total) == (10, 40)
        assert set(state.checkpoint_records("work_package")) == set(range(1, 11))

        _read(changes, index, range(11, 13))
        clock.now += timedelta(seconds=29)
        await checkpointer(12, 0, 40)
        assert state.get_checkpoint() == first  # neither 10 records nor 30 s yet
        clock.now += timedelta(seconds=2)
        await checkpointer(12, 0, 40)  # 31 s since the last one: due
        second = state.get_checkpoint()
        assert second is not None and second.checkpoints == 2 and second.records_done == 12
        assert second.updated_at == T0 + timedelta(seconds=31)

        _read(changes, index, range(13, 20))  # read but never committed: lost on a kill
        generation = index.generation
        resume = find_resume(state, directory, "acme")
        assert resume is not None and resume.checkpoint.generation == generation
        assert set(resume.versions) == set(range(1, 13))
        assert resume.plan().reason.startswith("resuming the unfinished full sync")
    with TenantIndex(directory, generation=generation) as reopened:
        assert reopened.all_ids("work_package") == list(range(1, 13))
