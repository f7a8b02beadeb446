"""Typed values the state store reads and writes, and their text encoding in SQLite."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Literal

from opindex.errors import InvalidArgumentError
from opindex.moments import utc_now as utc_now  # the store's default clock

RunKind = Literal["full", "incremental", "rebuild"]
RunOutcome = Literal["running", "succeeded", "failed", "interrupted"]
RUN_KINDS: tuple[RunKind, ...] = ("full", "incremental", "rebuild")


def to_text(moment: datetime) -> str:
    """Encode an aware datetime as fixed-width ISO 8601 UTC text (sorts chronologically)."""
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise InvalidArgumentError(f"timestamp {moment.isoformat()} has no time zone")
    return moment.astimezone(UTC).isoformat(timespec="microseconds")


def from_text(text: str) -> datetime:
    """Decode text written by :func:`to_text`."""
    return datetime.fromisoformat(text)


def optional_from_text(text: str | None) -> datetime | None:
    """:func:`from_text` that passes None through."""
    return None if text is None else from_text(text)


@dataclass(frozen=True, slots=True)
class KindCounts:
    """How many records of one kind a sync run wrote to and removed from the index."""

    upserted: int = 0
    deleted: int = 0


@dataclass(frozen=True, slots=True)
class SyncRun:
    """One full sync, incremental sync or rebuild, as recorded in ``sync_runs``.

    ``counts`` maps a record kind to its :class:`KindCounts`; ``requests`` is the number of
    HTTP requests the run made; ``index_opstamp`` is the index commit it produced (if any);
    ``pid`` is the process that ran it.
    """

    id: int
    kind: RunKind
    started_at: datetime
    finished_at: datetime | None
    outcome: RunOutcome
    counts: Mapping[str, KindCounts]
    requests: int
    error: str | None
    index_opstamp: int | None
    pid: int | None

    @property
    def duration_seconds(self) -> float | None:
        """Wall time of a finished run."""
        if self.finished_at is None:
            return None
        return (self.finished_at - self.started_at).total_seconds()


@dataclass(frozen=True, slots=True)
class RecordVersion:
    """The version of a record the index now holds: input to ``upsert_known``."""

    id: int
    updated_at: datetime | None = None
    content_hash: str | None = None


@dataclass(frozen=True, slots=True)
class KnownRecord:
    """A record the live index holds.

    ``updated_at`` is the server's timestamp of the indexed version; ``last_fetched_at`` is
    when its content was last read (wiki pages are re-read on a schedule from it);
    ``last_seen_at`` is when a listing last confirmed it still exists.
    """

    kind: str
    id: int
    updated_at: datetime | None
    content_hash: str | None
    last_seen_at: datetime
    last_fetched_at: datetime


@dataclass(frozen=True, slots=True)
class WikiProbeRange:
    """Wiki page ids ``first_id..last_id`` (inclusive) were probed at ``probed_at``."""

    first_id: int
    last_id: int
    probed_at: datetime

    def __post_init__(self) -> None:
        if self.first_id < 1 or self.last_id < self.first_id:
            raise InvalidArgumentError(
                f"invalid wiki probe range {self.first_id}..{self.last_id}: ids start at 1 "
                "and the range must not be empty"
            )


@dataclass(frozen=True, slots=True)
class WikiDiscovery:
    """How far wiki page discovery by id probing has got.

    ``probed_ranges`` are stored merged: overlapping or adjacent ranges become one, keeping
    the older ``probed_at`` (so a range is never considered fresher than its oldest part).
    """

    highest_id_seen: int | None = None
    last_full_probe_at: datetime | None = None
    probed_ranges: tuple[WikiProbeRange, ...] = ()


def merge_probe_ranges(ranges: tuple[WikiProbeRange, ...]) -> tuple[WikiProbeRange, ...]:
    """Sort and merge overlapping or adjacent ranges (see :class:`WikiDiscovery`)."""
    merged: list[WikiProbeRange] = []
    for current in sorted(ranges, key=lambda r: (r.first_id, r.last_id)):
        if merged and current.first_id <= merged[-1].last_id + 1:
            previous = merged[-1]
            merged[-1] = WikiProbeRange(
                previous.first_id,
                max(previous.last_id, current.last_id),
                min(previous.probed_at, current.probed_at),
            )
        else:
            merged.append(current)
    return tuple(merged)


@dataclass(frozen=True, slots=True)
class Capabilities:
    """What the OpenProject server supports (a JSON object), and when that was detected."""

    data: Mapping[str, object] = field(default_factory=dict)
    detected_at: datetime = field(default_factory=utc_now)


@dataclass(frozen=True, slots=True)
class IndexPointer:
    """Which index directory is live and which of its commits this state describes.

    ``directory`` is relative to the tenant's directory; ``schema_version`` is the index
    schema it was built with; ``opstamp`` is the index commit stamp (Tantivy's commit
    opstamp) recorded in the same transaction as the state changes of that commit;
    ``committed_at`` is when that commit was made.
    """

    directory: str
    schema_version: int
    opstamp: int
    committed_at: datetime


class CommitAgreement(enum.Enum):
    """How the index's last commit relates to the one the state describes."""

    NO_POINTER = "no_pointer"
    """Nothing recorded yet: a fresh tenant, or a state database that was reset."""
    IN_SYNC = "in_sync"
    """The index's last commit is the one the state describes."""
    INDEX_AHEAD = "index_ahead"
    """The index committed after the state's last transaction (a crash in between)."""
    INDEX_BEHIND = "index_behind"
    """The index lost commits the state describes (restored or replaced index files)."""


def compare_commit(index_opstamp: int | None, pointer: IndexPointer | None) -> CommitAgreement:
    """Classify the index's last commit stamp against the stored pointer.

    ``index_opstamp`` None means the index has no commit (missing or empty).
    """
    if pointer is None:
        return CommitAgreement.NO_POINTER
    current = 0 if index_opstamp is None else index_opstamp
    if current == pointer.opstamp:
        return CommitAgreement.IN_SYNC
    return (
        CommitAgreement.INDEX_AHEAD if current > pointer.opstamp else CommitAgreement.INDEX_BEHIND
    )
