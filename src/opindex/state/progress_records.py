"""Sync progress beyond single runs: full-sync checkpoints, manifest summary, webhook counts,
failures of background tasks."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from opindex.state.database import StateDatabase
from opindex.state.state_values import RecordVersion, from_text, to_text

WEBHOOK_OUTCOMES = ("accepted", "refused", "ignored")
BACKGROUND_TASKS = ("webhooks", "verification", "sync")


@dataclass(frozen=True, slots=True)
class Checkpoint:
    """An unfinished full sync into an unpublished index generation."""

    generation: str
    run_kind: str
    started_at: datetime
    records_done: int
    records_total: int
    checkpoints: int
    updated_at: datetime


@dataclass(frozen=True, slots=True)
class ManifestSummary:
    """What the last successful run's work-package manifest comparison found."""

    run_id: int
    finished_at: datetime
    listed: int
    added: int
    changed: int
    removed: int
    server_time: datetime | None


@dataclass(frozen=True, slots=True)
class WebhookCount:
    """Deliveries of one outcome and when the last one arrived."""

    outcome: str
    count: int
    last_at: datetime


@dataclass(frozen=True, slots=True)
class BackgroundFailure:
    """A background task's failures since its last success (see migration 0004)."""

    task: str
    count: int
    last_at: datetime
    last_error: str


class ProgressRecords(StateDatabase):
    """Typed access to the checkpoint, manifest, webhook and background-failure tables
    (migrations 0002 and 0004)."""

    # --- full-sync checkpoint ---------------------------------------------------------

    def get_checkpoint(self) -> Checkpoint | None:
        """The unfinished full sync's checkpoint, if there is one."""
        with self._reading("reading the full-sync checkpoint") as connection:
            row = connection.execute(
                "SELECT generation, run_kind, started_at, records_done, records_total,"
                " checkpoints, updated_at FROM full_sync_checkpoint"
            ).fetchone()
        if row is None:
            return None
        return Checkpoint(
            generation=str(row[0]),
            run_kind=str(row[1]),
            started_at=from_text(row[2]),
            records_done=int(row[3]),
            records_total=int(row[4]),
            checkpoints=int(row[5]),
            updated_at=from_text(row[6]),
        )

    def save_checkpoint(
        self, checkpoint: Checkpoint, kind: str, versions: Iterable[RecordVersion]
    ) -> None:
        """Store the checkpoint and the record versions its commit added (one transaction)."""
        with self._writing("storing a full-sync checkpoint") as connection:
            connection.execute(
                "INSERT OR REPLACE INTO full_sync_checkpoint (singleton, generation, run_kind,"
                " started_at, records_done, records_total, checkpoints, updated_at)"
                " VALUES (1, ?, ?, ?, ?, ?, ?, ?)",
                (
                    checkpoint.generation,
                    checkpoint.run_kind,
                    to_text(checkpoint.started_at),
                    checkpoint.records_done,
                    checkpoint.records_total,
                    checkpoint.checkpoints,
                    to_text(checkpoint.updated_at),
                ),
            )
            connection.executemany(
                "INSERT OR REPLACE INTO checkpoint_records (kind, id, updated_at, content_hash)"
                " VALUES (?, ?, ?, ?)",
                (
                    (
                        kind,
                        version.id,
                        None if version.updated_at is None else to_text(version.updated_at),
                        version.content_hash,
                    )
                    for version in versions
                ),
            )

    def checkpoint_records(self, kind: str) -> dict[int, RecordVersion]:
        """The record versions the checkpointed generation holds, by id."""
        with self._reading("reading checkpoint records") as connection:
            found = connection.execute(
                "SELECT id, updated_at, content_hash FROM checkpoint_records WHERE kind = ?",
                (kind,),
            ).fetchall()
        return {
            int(row[0]): RecordVersion(
                int(row[0]), None if row[1] is None else from_text(row[1]), row[2]
            )
            for row in found
        }

    def clear_checkpoint(self) -> None:
        """Forget the checkpoint and its records (published or abandoned)."""
        with self._writing("clearing the full-sync checkpoint") as connection:
            connection.execute("DELETE FROM full_sync_checkpoint")
            connection.execute("DELETE FROM checkpoint_records")

    # --- manifest summary -------------------------------------------------------------

    def set_manifest_summary(self, summary: ManifestSummary) -> None:
        """Record the manifest comparison of a run that succeeded."""
        with self._writing("storing the manifest summary") as connection:
            connection.execute(
                "INSERT OR REPLACE INTO manifest_summary (singleton, run_id, finished_at,"
                " listed, added, changed, removed, server_time) VALUES (1, ?, ?, ?, ?, ?, ?, ?)",
                (
                    summary.run_id,
                    to_text(summary.finished_at),
                    summary.listed,
                    summary.added,
                    summary.changed,
                    summary.removed,
                    None if summary.server_time is None else to_text(summary.server_time),
                ),
            )

    def get_manifest_summary(self) -> ManifestSummary | None:
        """The last successful run's manifest comparison, if any."""
        with self._reading("reading the manifest summary") as connection:
            row = connection.execute(
                "SELECT run_id, finished_at, listed, added, changed, removed, server_time"
                " FROM manifest_summary"
            ).fetchone()
        if row is None:
            return None
        return ManifestSummary(
            run_id=int(row[0]),
            finished_at=from_text(row[1]),
            listed=int(row[2]),
            added=int(row[3]),
            changed=int(row[4]),
            removed=int(row[5]),
            server_time=None if row[6] is None else from_text(row[6]),
        )

    # --- webhook deliveries -----------------------------------------------------------

    def count_webhook(self, outcome: str, at: datetime, times: int = 1) -> None:
        """Count *times* webhook deliveries with ``outcome`` (one of
        :data:`WEBHOOK_OUTCOMES`), the last at *at*."""
        if outcome not in WEBHOOK_OUTCOMES:
            raise ValueError(f"unknown webhook outcome {outcome!r}")
        with self._writing("counting a webhook delivery") as connection:
            connection.execute(
                "INSERT INTO webhook_counts (outcome, count, last_at) VALUES (?, ?, ?)"
                " ON CONFLICT (outcome) DO UPDATE SET count = count + excluded.count,"
                " last_at = excluded.last_at",
                (outcome, times, to_text(at)),
            )

    def webhook_counts(self) -> dict[str, WebhookCount]:
        """Deliveries per outcome (outcomes never seen are absent)."""
        with self._reading("reading webhook counts") as connection:
            found = connection.execute(
                "SELECT outcome, count, last_at FROM webhook_counts"
            ).fetchall()
        return {
            str(row[0]): WebhookCount(str(row[0]), int(row[1]), from_text(row[2])) for row in found
        }

    # --- background task failures -----------------------------------------------------

    def record_background_failure(self, task: str, error: str, at: datetime) -> None:
        """Count one failure of background *task* (one of :data:`BACKGROUND_TASKS`)."""
        if task not in BACKGROUND_TASKS:
            raise ValueError(f"unknown background task {task!r}")
        with self._writing("recording a background failure") as connection:
            connection.execute(
                "INSERT INTO background_failures (task, count, last_at, last_error)"
                " VALUES (?, 1, ?, ?) ON CONFLICT (task) DO UPDATE SET count = count + 1,"
                " last_at = excluded.last_at, last_error = excluded.last_error",
                (task, to_text(at), error),
            )

    def clear_background_failure(self, task: str) -> None:
        """Forget *task*'s failures (it has succeeded since)."""
        with self._writing("clearing a background failure") as connection:
            connection.execute("DELETE FROM background_failures WHERE task = ?", (task,))

    def background_failures(self) -> list[BackgroundFailure]:
        """Background tasks failing since their last success, by task name."""
        with self._reading("reading background failures") as connection:
            found = connection.execute(
                "SELECT task, count, last_at, last_error FROM background_failures ORDER BY task"
            ).fetchall()
        return [
            BackgroundFailure(str(row[0]), int(row[1]), from_text(row[2]), str(row[3]))
            for row in found
        ]
