"""Checkpoints, manifest summaries and webhook counts survive reopening the state database."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from opindex.errors import StateError
from opindex.state import RecordVersion, StateStore
from opindex.state.progress_records import Checkpoint, ManifestSummary

T0 = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)


def test_checkpoint_and_its_records_round_trip_and_clear(tmp_path: Path) -> None:
    path = tmp_path / "state.sqlite3"
    checkpoint = Checkpoint("g000002", "rebuild", T0, 500, 5000, 1, T0 + timedelta(seconds=9))
    versions = [RecordVersion(1, T0, "aa"), RecordVersion(2, None, None)]
    with StateStore.open(path) as store:
        assert store.get_checkpoint() is None
        store.save_checkpoint(checkpoint, "work_package", versions)
        later = Checkpoint("g000002", "rebuild", T0, 1000, 5000, 2, T0 + timedelta(seconds=20))
        store.save_checkpoint(later, "work_package", [RecordVersion(3, T0, "cc")])
    with StateStore.open(path) as store:
        assert store.get_checkpoint() == later
        assert store.checkpoint_records("work_package") == {
            1: versions[0],
            2: versions[1],
            3: RecordVersion(3, T0, "cc"),
        }
        assert store.checkpoint_records("meeting") == {}
        store.clear_checkpoint()
        assert store.get_checkpoint() is None
        assert store.checkpoint_records("work_package") == {}


def test_a_checkpoint_of_an_unknown_run_kind_is_refused_and_loses_nothing(tmp_path: Path) -> None:
    path = tmp_path / "state.sqlite3"
    good = Checkpoint("g000002", "full", T0, 1, 2, 1, T0)
    with StateStore.open(path) as store:
        store.save_checkpoint(good, "work_package", [RecordVersion(1, T0, "aa")])
        bad = Checkpoint("g000003", "incremental", T0, 1, 2, 1, T0)
        with pytest.raises(StateError, match=r"CHECK|constraint"):
            store.save_checkpoint(bad, "work_package", [RecordVersion(9, T0, "zz")])
        assert store.get_checkpoint() == good
        assert set(store.checkpoint_records("work_package")) == {1}


def test_manifest_summary_and_webhook_counts(tmp_path: Path) -> None:
    path = tmp_path / "state.sqlite3"
    with StateStore.open(path) as store:
        assert store.get_manifest_summary() is None
        summary = ManifestSummary(7, T0, 10_000, 3, 5, 2, T0 - timedelta(seconds=1))
        store.set_manifest_summary(summary)
        store.count_webhook("accepted", T0)
        store.count_webhook("accepted", T0 + timedelta(seconds=5))
        store.count_webhook("refused", T0)
        with pytest.raises(ValueError, match="unknown webhook outcome"):
            store.count_webhook("maybe", T0)
    with StateStore.open(path) as store:
        assert store.get_manifest_summary() == summary
        counts = store.webhook_counts()
        assert {name: c.count for name, c in counts.items()} == {"accepted": 2, "refused": 1}
        assert counts["accepted"].last_at == T0 + timedelta(seconds=5)
