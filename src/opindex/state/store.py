"""StateStore: the typed API over one tenant's SQLite state database.

Commit protocol ("an index commit and the state that points past it move together").
The index and the state database cannot share one transaction, so every index commit is
stamped with an *opstamp* (Tantivy's commit opstamp, increasing with every commit) that
the state records in the same transaction as everything that commit implies:

1. Hold :func:`opindex.state.lock.tenant_lock`. Call :meth:`StateStore.mark_interrupted_runs`
   (runs left ``running`` by a killed process), then :meth:`StateStore.start_run`.
2. Open the index directory named by :meth:`StateStore.get_index_pointer` and compare its
   last commit opstamp with the pointer using
   :func:`opindex.state.state_values.compare_commit`:

   - ``IN_SYNC``: continue normally.
   - ``INDEX_AHEAD``: an earlier run committed the index and died before step 4. The
     state's high-water marks are older than the index content, so re-syncing from them
     re-applies the same changes (upserts are idempotent); run a deletion sweep too, so
     the known ids converge, then record the new opstamp as usual.
   - ``INDEX_BEHIND``: the index lost commits the state describes; state cannot be
     trusted for this index: do a full sync or rebuild.
   - ``NO_POINTER``: a fresh tenant: full sync.
3. Write the documents to the index and commit it, obtaining the new opstamp.
4. In ONE :meth:`StateStore.transaction`: set the high-water marks, upsert/delete the known
   records, :meth:`StateStore.set_index_pointer` with the new opstamp, and
   :meth:`StateStore.finish_run`. Either all of it is stored or none of it.

A failure before step 3 leaves the index unchanged (:meth:`StateStore.fail_run` records
it); a crash between 3 and 4 is detected by step 2 of the next run. A rebuild writes a new
index directory, and only the step-4 transaction (with ``clear_known`` and the new
``directory`` in the pointer) makes it live; the old directory is deleted afterwards.

Every method raises :class:`~opindex.errors.StateError` when the database is locked beyond
the busy timeout, corrupt or unwritable. One store may be shared between threads; access
is serialized, and a transaction holds the store for the thread that opened it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any

from opindex.errors import InvalidArgumentError, StateError
from opindex.state import rows
from opindex.state.extraction_records import ExtractionRecords
from opindex.state.progress_records import ProgressRecords
from opindex.state.state_values import (
    RUN_KINDS,
    Capabilities,
    IndexPointer,
    KindCounts,
    KnownRecord,
    RecordVersion,
    RunKind,
    SyncRun,
    WikiDiscovery,
    merge_probe_ranges,
    to_text,
)

MAX_ERROR_TEXT = 4000
"""Longer error texts of failed runs are cut to this many characters."""


class StateStore(ProgressRecords, ExtractionRecords):
    """One tenant's state database. Open with :meth:`open` or :meth:`for_tenant`."""

    # --- sync runs ------------------------------------------------------------------

    def start_run(self, kind: RunKind) -> SyncRun:
        """Record that a sync run of ``kind`` starts now in this process."""
        if kind not in RUN_KINDS:
            raise InvalidArgumentError(f"unknown sync run kind {kind!r}")
        with self._writing("recording the start of a sync run") as connection:
            cursor = connection.execute(
                "INSERT INTO sync_runs (kind, started_at, pid) VALUES (?, ?, ?)",
                (kind, self._now(), os.getpid()),
            )
            return rows.sync_run(connection, int(cursor.lastrowid or 0))

    def finish_run(
        self,
        run_id: int,
        *,
        counts: Mapping[str, KindCounts] | None = None,
        requests: int = 0,
        index_opstamp: int | None = None,
    ) -> SyncRun:
        """Record that the running run ``run_id`` succeeded."""
        return self._end_run(run_id, "succeeded", counts, requests, None, index_opstamp)

    def fail_run(
        self,
        run_id: int,
        error: str,
        *,
        counts: Mapping[str, KindCounts] | None = None,
        requests: int = 0,
        interrupted: bool = False,
    ) -> SyncRun:
        """Record that the run failed (or was ``interrupted``, e.g. by a signal)."""
        outcome = "interrupted" if interrupted else "failed"
        return self._end_run(run_id, outcome, counts, requests, error, None)

    def _end_run(
        self,
        run_id: int,
        outcome: str,
        counts: Mapping[str, KindCounts] | None,
        requests: int,
        error: str | None,
        index_opstamp: int | None,
    ) -> SyncRun:
        if requests < 0:
            raise InvalidArgumentError("requests must not be negative")
        with self._writing("recording the end of a sync run") as connection:
            cursor = connection.execute(
                "UPDATE sync_runs SET outcome = ?, finished_at = ?, counts = ?, requests = ?,"
                " error = ?, index_opstamp = ? WHERE id = ? AND outcome = 'running'",
                (
                    outcome,
                    self._now(),
                    rows.counts_to_json(counts or {}),
                    requests,
                    None if error is None else error[:MAX_ERROR_TEXT],
                    index_opstamp,
                    run_id,
                ),
            )
            if cursor.rowcount == 0:
                existing = rows.optional_sync_run(connection, run_id)
                problem = "does not exist" if existing is None else f"is {existing.outcome}"
                raise StateError(f"cannot finish sync run {run_id}: it {problem}")
            return rows.sync_run(connection, run_id)

    def mark_interrupted_runs(
        self, error: str = "the process ended before the run finished"
    ) -> int:
        """Mark every ``running`` run as interrupted; return how many.

        Call only while holding the tenant lock: then no run can really be running.
        """
        with self._writing("marking interrupted sync runs") as connection:
            cursor = connection.execute(
                "UPDATE sync_runs SET outcome = 'interrupted', finished_at = ?, error = ?"
                " WHERE outcome = 'running'",
                (self._now(), error),
            )
            return cursor.rowcount

    def get_run(self, run_id: int) -> SyncRun | None:
        """The run with id ``run_id``, if recorded."""
        with self._reading("reading a sync run") as connection:
            return rows.optional_sync_run(connection, run_id)

    def check_rows(self) -> None:
        """Decode every row of the small tables (runs, high-water marks, capabilities,
        index pointer, wiki discovery); StateCorruptError if one does not parse."""
        with self._reading("checking the stored rows") as connection:
            rows.recent_runs(connection, -1, None)  # LIMIT -1: every run
            rows.high_water_marks(connection)
            rows.capabilities(connection)
            rows.index_pointer(connection)
            rows.wiki_discovery(connection)

    def latest_run(self, kind: RunKind | None = None) -> SyncRun | None:
        """The most recently started run (of ``kind``, if given), whatever its outcome."""
        runs = self.recent_runs(limit=1, kind=kind)
        return runs[0] if runs else None

    def last_successful_run(self, kind: RunKind | None = None) -> SyncRun | None:
        """The successful run (of ``kind``, if given) that finished last."""
        with self._reading("reading sync runs") as connection:
            return rows.last_successful_run(connection, kind)

    def recent_runs(self, limit: int = 20, *, kind: RunKind | None = None) -> list[SyncRun]:
        """Up to ``limit`` runs, newest first."""
        with self._reading("reading sync runs") as connection:
            return rows.recent_runs(connection, limit, kind)

    # --- high-water marks -----------------------------------------------------------

    def get_high_water(self, resource: str) -> datetime | None:
        """The newest server ``updatedAt`` synced for ``resource``, if any."""
        return self.high_water_marks().get(resource)

    def set_high_water(self, resource: str, value: datetime) -> None:
        """Store ``value`` as the high-water mark of ``resource`` (may move backwards)."""
        with self._writing("storing a high-water mark") as connection:
            connection.execute(
                "INSERT INTO high_water_marks (resource, value, updated_at) VALUES (?, ?, ?)"
                " ON CONFLICT (resource) DO UPDATE SET value = excluded.value,"
                " updated_at = excluded.updated_at",
                (resource, to_text(value), self._now()),
            )

    def high_water_marks(self) -> dict[str, datetime]:
        """Every stored high-water mark by resource."""
        with self._reading("reading high-water marks") as connection:
            return rows.high_water_marks(connection)

    def clear_high_water(self, resource: str | None = None) -> None:
        """Forget the mark of ``resource``, or every mark (the next sync is a full one)."""
        with self._writing("clearing high-water marks") as connection:
            if resource is None:
                connection.execute("DELETE FROM high_water_marks")
            else:
                connection.execute("DELETE FROM high_water_marks WHERE resource = ?", (resource,))

    # --- known records --------------------------------------------------------------

    def upsert_known(self, kind: str, versions: Iterable[RecordVersion]) -> int:
        """Record that the index now holds these versions (fetched and seen now)."""
        now = self._now()
        values = [rows.version_row(kind, version, now) for version in versions]
        with self._writing("recording known records") as connection:
            connection.executemany(rows.UPSERT_KNOWN, values)
        return len(values)

    def mark_known_seen(self, kind: str, ids: Iterable[int]) -> int:
        """Record that a listing showed these records still exist; return how many known."""
        now = self._now()
        with self._writing("marking known records as seen") as connection:
            cursor = connection.executemany(
                "UPDATE known_records SET last_seen_at = ? WHERE kind = ? AND id = ?",
                ((now, kind, record_id) for record_id in ids),
            )
            return max(cursor.rowcount, 0)

    def delete_known(self, kind: str, ids: Iterable[int]) -> int:
        """Forget these records (deleted from the index); return how many were known."""
        with self._writing("deleting known records") as connection:
            cursor = connection.executemany(
                "DELETE FROM known_records WHERE kind = ? AND id = ?",
                ((kind, record_id) for record_id in ids),
            )
            return max(cursor.rowcount, 0)

    def clear_known(self, kind: str | None = None) -> int:
        """Forget every known record (of ``kind``, if given); return how many."""
        with self._writing("clearing known records") as connection:
            if kind is None:
                return connection.execute("DELETE FROM known_records").rowcount
            return connection.execute("DELETE FROM known_records WHERE kind = ?", (kind,)).rowcount

    def known_ids(self, kind: str) -> set[int]:
        """Ids of every known record of ``kind``."""
        with self._reading("reading known records") as connection:
            found = connection.execute("SELECT id FROM known_records WHERE kind = ?", (kind,))
            return {int(row[0]) for row in found}

    def known_records(self, kind: str) -> dict[int, KnownRecord]:
        """Every known record of ``kind`` by id."""
        with self._reading("reading known records") as connection:
            return rows.known_records(connection, kind)

    def get_known(self, kind: str, record_id: int) -> KnownRecord | None:
        """One known record, if known."""
        with self._reading("reading a known record") as connection:
            return rows.known_records(connection, kind, record_id).get(record_id)

    def known_not_fetched_since(
        self, kind: str, before: datetime, *, limit: int | None = None
    ) -> list[int]:
        """Ids of ``kind`` whose content was last read before ``before``, oldest first."""
        with self._reading("reading known records") as connection:
            found = connection.execute(
                "SELECT id FROM known_records WHERE kind = ? AND last_fetched_at < ?"
                " ORDER BY last_fetched_at, id LIMIT ?",
                (kind, to_text(before), -1 if limit is None else limit),
            )
            return [int(row[0]) for row in found]

    def count_known(self) -> dict[str, int]:
        """Number of known records per kind."""
        with self._reading("counting known records") as connection:
            found = connection.execute("SELECT kind, count(*) FROM known_records GROUP BY kind")
            return {str(kind): int(count) for kind, count in found}

    # --- wiki discovery, capabilities, index pointer --------------------------------

    def get_wiki_discovery(self) -> WikiDiscovery:
        """How far wiki discovery has got (an empty state if it never ran)."""
        with self._reading("reading wiki discovery state") as connection:
            return rows.wiki_discovery(connection)

    def set_wiki_discovery(self, discovery: WikiDiscovery) -> WikiDiscovery:
        """Replace the wiki discovery state; returns it as stored (ranges merged)."""
        merged = merge_probe_ranges(discovery.probed_ranges)
        stored = WikiDiscovery(discovery.highest_id_seen, discovery.last_full_probe_at, merged)
        with self._writing("storing wiki discovery state") as connection:
            rows.replace_wiki_discovery(connection, stored, self._now())
        return stored

    def get_capabilities(self) -> Capabilities | None:
        """The server capabilities last detected, if any."""
        with self._reading("reading server capabilities") as connection:
            return rows.capabilities(connection)

    def set_capabilities(
        self, data: Mapping[str, Any], *, detected_at: datetime | None = None
    ) -> Capabilities:
        """Store the server capabilities (a JSON-serializable mapping)."""
        try:
            text = json.dumps(dict(data), sort_keys=True)
        except (TypeError, ValueError) as exc:
            raise InvalidArgumentError(f"capabilities are not JSON-serializable: {exc}") from exc
        moment = detected_at or self._clock()
        with self._writing("storing server capabilities") as connection:
            connection.execute(
                "INSERT OR REPLACE INTO capabilities (singleton, data, detected_at)"
                " VALUES (1, ?, ?)",
                (text, to_text(moment)),
            )
        return Capabilities(json.loads(text), moment)

    def get_index_pointer(self) -> IndexPointer | None:
        """Which index directory is live and which commit the state describes."""
        with self._reading("reading the index pointer") as connection:
            return rows.index_pointer(connection)

    def set_index_pointer(self, pointer: IndexPointer) -> None:
        """Store the pointer; do it in the same transaction as the commit's state changes."""
        with self._writing("storing the index pointer") as connection:
            connection.execute(
                "INSERT OR REPLACE INTO index_pointer (singleton, directory, schema_version,"
                " opstamp, committed_at, updated_at) VALUES (1, ?, ?, ?, ?, ?)",
                (
                    pointer.directory,
                    pointer.schema_version,
                    pointer.opstamp,
                    to_text(pointer.committed_at),
                    self._now(),
                ),
            )
