"""What a finished sync run did, for the CLI, the daemon's logs and tests."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime

from opindex.search import KIND_LABELS, KINDS
from opindex.state import KindCounts, RunKind


@dataclass(frozen=True, slots=True)
class SyncReport:
    """One successful run of one tenant.

    ``counts``: per record kind, documents written to and removed from the index (a
    record re-read with unchanged content is not written). ``documents``: per kind, what
    the index holds afterwards. ``requests``: HTTP requests sent to OpenProject.
    ``swept``: whether deletions were reconciled against complete id listings.
    """

    tenant: str
    run_id: int
    kind: RunKind
    reason: str
    started_at: datetime
    finished_at: datetime
    counts: Mapping[str, KindCounts]
    documents: Mapping[str, int]
    requests: int
    swept: bool
    generation: str
    opstamp: int

    @property
    def duration_seconds(self) -> float:
        """Wall time of the run."""
        return (self.finished_at - self.started_at).total_seconds()

    @property
    def documents_total(self) -> int:
        """Documents in the index after the run."""
        return sum(self.documents.values())

    def summary(self) -> str:
        """One line for humans, e.g. for ``opindex sync`` output."""
        changed = ", ".join(
            f"{KIND_LABELS[kind][1]} +{self.counts.get(kind, KindCounts()).upserted}"
            f"/-{self.counts.get(kind, KindCounts()).deleted}"
            for kind in KINDS
        )
        held = ", ".join(f"{self.documents.get(kind, 0)} {KIND_LABELS[kind][1]}" for kind in KINDS)
        sweep = ", deletions swept" if self.swept else ""
        return (
            f"{self.tenant}: {self.kind} sync ok in {self.duration_seconds:.1f} s, "
            f"{self.requests} requests{sweep}; changed: {changed}; index holds {held}"
        )
