"""SQL queries of the state store and conversion between table rows and typed values."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping
from datetime import datetime
from typing import Any, cast

from opindex.errors import InvalidArgumentError, StateError
from opindex.state.state_values import (
    RUN_KINDS,
    Capabilities,
    IndexPointer,
    KindCounts,
    KnownRecord,
    RecordVersion,
    RunKind,
    RunOutcome,
    SyncRun,
    WikiDiscovery,
    WikiProbeRange,
    from_text,
    optional_from_text,
    to_text,
)

_RUN_COLUMNS = (
    "id, kind, started_at, finished_at, outcome, counts, requests, error, index_opstamp, pid"
)

UPSERT_KNOWN = (
    "INSERT INTO known_records (kind, id, updated_at, content_hash, last_seen_at,"
    " last_fetched_at) VALUES (?, ?, ?, ?, ?, ?)"
    " ON CONFLICT (kind, id) DO UPDATE SET updated_at = excluded.updated_at,"
    " content_hash = excluded.content_hash, last_seen_at = excluded.last_seen_at,"
    " last_fetched_at = excluded.last_fetched_at"
)


# --- sync runs -------------------------------------------------------------------------


def counts_to_json(counts: Mapping[str, KindCounts]) -> str:
    """Encode per-kind counts as the JSON stored in ``sync_runs.counts``."""
    encoded: dict[str, dict[str, int]] = {}
    for kind, value in counts.items():
        if value.upserted < 0 or value.deleted < 0:
            raise InvalidArgumentError(f"counts for {kind!r} must not be negative")
        encoded[kind] = {"upserted": value.upserted, "deleted": value.deleted}
    return json.dumps(encoded, sort_keys=True)


def _counts_from_json(text: str) -> dict[str, KindCounts]:
    data = cast(dict[str, dict[str, int]], json.loads(text))
    return {
        kind: KindCounts(
            upserted=int(value.get("upserted", 0)), deleted=int(value.get("deleted", 0))
        )
        for kind, value in data.items()
    }


_OUTCOMES = ("running", "succeeded", "failed", "interrupted")


def _run_from_row(row: tuple[Any, ...]) -> SyncRun:
    """The run of a ``sync_runs`` row (ValueError/TypeError if it does not parse)."""
    run_id, kind, started, finished, outcome, counts, requests, error, opstamp, pid = row
    if kind not in RUN_KINDS or outcome not in _OUTCOMES:
        raise ValueError(f"sync run {run_id!r} has kind {kind!r} and outcome {outcome!r}")
    if not isinstance(error, str | None) or not isinstance(opstamp, int | None):
        raise TypeError(f"sync run {run_id!r} has a malformed error or opstamp")
    return SyncRun(
        id=int(run_id),
        kind=cast(RunKind, kind),
        started_at=from_text(started),
        finished_at=optional_from_text(finished),
        outcome=cast(RunOutcome, outcome),
        counts=_counts_from_json(counts),
        requests=int(requests),
        error=error,
        index_opstamp=opstamp,
        pid=pid,
    )


def optional_sync_run(connection: sqlite3.Connection, run_id: int) -> SyncRun | None:
    """The run with this id, or None."""
    row = connection.execute(
        f"SELECT {_RUN_COLUMNS} FROM sync_runs WHERE id = ?", (run_id,)
    ).fetchone()
    return None if row is None else _run_from_row(row)


def sync_run(connection: sqlite3.Connection, run_id: int) -> SyncRun:
    """The run with this id, which must exist."""
    run = optional_sync_run(connection, run_id)
    if run is None:
        raise StateError(f"sync run {run_id} is not recorded")
    return run


def recent_runs(connection: sqlite3.Connection, limit: int, kind: RunKind | None) -> list[SyncRun]:
    """Up to ``limit`` runs (of ``kind``), newest first."""
    found = connection.execute(
        f"SELECT {_RUN_COLUMNS} FROM sync_runs WHERE ?1 IS NULL OR kind = ?1"
        " ORDER BY id DESC LIMIT ?2",
        (kind, limit),
    )
    return [_run_from_row(row) for row in found]


def last_successful_run(connection: sqlite3.Connection, kind: RunKind | None) -> SyncRun | None:
    """The succeeded run (of ``kind``) with the latest ``finished_at``."""
    row = connection.execute(
        f"SELECT {_RUN_COLUMNS} FROM sync_runs WHERE outcome = 'succeeded'"
        " AND (?1 IS NULL OR kind = ?1) ORDER BY finished_at DESC, id DESC LIMIT 1",
        (kind,),
    ).fetchone()
    return None if row is None else _run_from_row(row)


# --- high-water marks and known records ------------------------------------------------


def high_water_marks(connection: sqlite3.Connection) -> dict[str, datetime]:
    """Every high-water mark by resource, decoded."""
    found = connection.execute("SELECT resource, value FROM high_water_marks")
    return {str(resource): from_text(value) for resource, value in found}


def version_row(kind: str, version: RecordVersion, now: str) -> tuple[object, ...]:
    """Parameters of :data:`UPSERT_KNOWN` for one record version fetched at ``now``."""
    if not kind:
        raise InvalidArgumentError("record kind must not be empty")
    updated = None if version.updated_at is None else to_text(version.updated_at)
    return (kind, version.id, updated, version.content_hash, now, now)


def known_records(
    connection: sqlite3.Connection, kind: str, record_id: int | None = None
) -> dict[int, KnownRecord]:
    """Known records of ``kind`` by id (only ``record_id`` if given)."""
    found = connection.execute(
        "SELECT id, updated_at, content_hash, last_seen_at, last_fetched_at FROM known_records"
        " WHERE kind = ?1 AND (?2 IS NULL OR id = ?2)",
        (kind, record_id),
    )
    return {
        int(row_id): KnownRecord(
            kind=kind,
            id=int(row_id),
            updated_at=optional_from_text(updated),
            content_hash=content_hash,
            last_seen_at=from_text(seen),
            last_fetched_at=from_text(fetched),
        )
        for row_id, updated, content_hash, seen, fetched in found
    }


# --- wiki discovery, capabilities, index pointer ---------------------------------------


def wiki_discovery(connection: sqlite3.Connection) -> WikiDiscovery:
    """The stored wiki discovery state, or an empty one."""
    row = connection.execute(
        "SELECT highest_id_seen, last_full_probe_at FROM wiki_discovery WHERE singleton = 1"
    ).fetchone()
    ranges = tuple(
        WikiProbeRange(int(first), int(last), from_text(probed))
        for first, last, probed in connection.execute(
            "SELECT first_id, last_id, probed_at FROM wiki_probed_ranges ORDER BY first_id"
        )
    )
    if row is None:
        return WikiDiscovery(probed_ranges=ranges)
    return WikiDiscovery(row[0], optional_from_text(row[1]), ranges)


def replace_wiki_discovery(
    connection: sqlite3.Connection, discovery: WikiDiscovery, now: str
) -> None:
    """Overwrite the wiki discovery state (ranges must already be merged)."""
    last_probe = discovery.last_full_probe_at
    connection.execute(
        "INSERT OR REPLACE INTO wiki_discovery (singleton, highest_id_seen,"
        " last_full_probe_at, updated_at) VALUES (1, ?, ?, ?)",
        (discovery.highest_id_seen, None if last_probe is None else to_text(last_probe), now),
    )
    connection.execute("DELETE FROM wiki_probed_ranges")
    connection.executemany(
        "INSERT INTO wiki_probed_ranges (first_id, last_id, probed_at) VALUES (?, ?, ?)",
        ((r.first_id, r.last_id, to_text(r.probed_at)) for r in discovery.probed_ranges),
    )


def capabilities(connection: sqlite3.Connection) -> Capabilities | None:
    """The stored capabilities, or None."""
    row = connection.execute(
        "SELECT data, detected_at FROM capabilities WHERE singleton = 1"
    ).fetchone()
    return None if row is None else Capabilities(json.loads(row[0]), from_text(row[1]))


def index_pointer(connection: sqlite3.Connection) -> IndexPointer | None:
    """The stored index pointer, or None."""
    row = connection.execute(
        "SELECT directory, schema_version, opstamp, committed_at FROM index_pointer"
        " WHERE singleton = 1"
    ).fetchone()
    if row is None:
        return None
    return IndexPointer(str(row[0]), int(row[1]), int(row[2]), from_text(row[3]))
