"""Per-run tallies of extraction results (ExtractionCounts), for status and benchmarks."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from opindex.extract.outcome import Extraction, Outcome


@dataclass(slots=True)
class FormatTotals:
    """What one format cost over a run."""

    files: int = 0
    bytes: int = 0
    seconds: float = 0.0
    chars: int = 0

    def as_dict(self) -> dict[str, float | int]:
        """JSON-ready figures, with the throughput (0 when no time was measured)."""
        rate = self.bytes / self.seconds if self.seconds > 0 else 0.0
        return {
            "files": self.files,
            "bytes": self.bytes,
            "seconds": round(self.seconds, 6),
            "chars": self.chars,
            "bytes_per_second": round(rate),
        }


@dataclass(slots=True)
class ExtractionCounts:
    """Counts by outcome, by reason and by format; callers :meth:`add` each result."""

    by_outcome: Counter[str] = field(default_factory=Counter)
    by_reason: Counter[str] = field(default_factory=Counter)
    by_format: dict[str, FormatTotals] = field(default_factory=dict)

    @property
    def files(self) -> int:
        """Results added so far."""
        return sum(self.by_outcome.values())

    def add(self, extraction: Extraction) -> None:
        """Count one result."""
        self.by_outcome[extraction.outcome.value] += 1
        if extraction.reason is not None:
            self.by_reason[extraction.reason.value] += 1
        totals = self.by_format.setdefault(extraction.format.value, FormatTotals())
        totals.files += 1
        totals.bytes += extraction.size_bytes
        totals.seconds += extraction.seconds
        totals.chars += len(extraction.text)

    def merge(self, other: ExtractionCounts) -> None:
        """Add another run's counts to these."""
        self.by_outcome.update(other.by_outcome)
        self.by_reason.update(other.by_reason)
        for name, theirs in other.by_format.items():
            mine = self.by_format.setdefault(name, FormatTotals())
            mine.files += theirs.files
            mine.bytes += theirs.bytes
            mine.seconds += theirs.seconds
            mine.chars += theirs.chars

    def as_dict(self) -> dict[str, object]:
        """JSON-ready: every outcome (zeros included), reasons seen, formats seen."""
        return {
            "files": self.files,
            "by_outcome": {outcome.value: self.by_outcome[outcome.value] for outcome in Outcome},
            "by_reason": dict(sorted(self.by_reason.items())),
            "by_format": {name: self.by_format[name].as_dict() for name in sorted(self.by_format)},
        }
