"""Attachment extractions: how each indexed file's text was read (see migration 0003)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from opindex.state.database import StateDatabase
from opindex.state.state_values import from_text, to_text


@dataclass(frozen=True, slots=True)
class ExtractionRow:
    """One attachment's extraction: outcome (``extracted``, ``truncated``, ``skipped``,
    ``failed`` or ``deferred`` to a later run), the reason code of a skip or failure,
    the detected format, the file's bytes and the seconds extraction took."""

    id: int
    digest: str | None
    outcome: str
    reason: str | None
    format: str
    bytes: int
    seconds: float
    extracted_at: datetime


class ExtractionRecords(StateDatabase):
    """Typed access to the ``attachment_extractions`` table."""

    def extractions(self, ids: Iterable[int]) -> dict[int, ExtractionRow]:
        """The recorded extractions of *ids*, by id (ids never extracted are absent)."""
        wanted = sorted(set(ids))
        found: dict[int, ExtractionRow] = {}
        with self._reading("reading attachment extractions") as connection:
            for start in range(0, len(wanted), 500):
                chunk = wanted[start : start + 500]
                marks = ",".join("?" * len(chunk))
                for row in connection.execute(
                    "SELECT id, digest, outcome, reason, format, bytes, seconds, extracted_at"
                    f" FROM attachment_extractions WHERE id IN ({marks})",
                    chunk,
                ):
                    found[int(row[0])] = ExtractionRow(
                        int(row[0]),
                        row[1],
                        str(row[2]),
                        row[3],
                        str(row[4]),
                        int(row[5]),
                        float(row[6]),
                        from_text(row[7]),
                    )
        return found

    def deferred_extractions(self) -> list[int]:
        """Ids of the files a run left for a later one (budget spent, download failed)."""
        with self._reading("reading deferred attachment extractions") as connection:
            found = connection.execute(
                "SELECT id FROM attachment_extractions WHERE outcome = 'deferred' ORDER BY id"
            ).fetchall()
        return [int(row[0]) for row in found]

    def record_extractions(self, rows: Iterable[ExtractionRow]) -> None:
        """Store (or replace) extraction rows; call inside the run's commit transaction."""
        with self._writing("recording attachment extractions") as connection:
            connection.executemany(
                "INSERT OR REPLACE INTO attachment_extractions (id, digest, outcome, reason,"
                " format, bytes, seconds, extracted_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    (
                        row.id,
                        row.digest,
                        row.outcome,
                        row.reason,
                        row.format,
                        row.bytes,
                        row.seconds,
                        to_text(row.extracted_at),
                    )
                    for row in rows
                ),
            )

    def forget_extractions(self, ids: Iterable[int]) -> None:
        """Drop the rows of attachments the index no longer holds."""
        with self._writing("forgetting attachment extractions") as connection:
            connection.executemany(
                "DELETE FROM attachment_extractions WHERE id = ?", ((i,) for i in set(ids))
            )

    def extraction_summary(self) -> dict[str, object]:
        """Files by outcome and by reason, and bytes and seconds per format (for status)."""
        with self._reading("summarizing attachment extractions") as connection:
            outcomes = connection.execute(
                "SELECT outcome, count(*) FROM attachment_extractions GROUP BY outcome"
            ).fetchall()
            reasons = connection.execute(
                "SELECT reason, count(*) FROM attachment_extractions"
                " WHERE reason IS NOT NULL GROUP BY reason"
            ).fetchall()
            formats = connection.execute(
                "SELECT format, count(*), sum(bytes), sum(seconds) FROM attachment_extractions"
                " GROUP BY format"
            ).fetchall()
        return {
            "by_outcome": {str(row[0]): int(row[1]) for row in outcomes},
            "by_reason": {str(row[0]): int(row[1]) for row in reasons},
            "by_format": {
                str(row[0]): {"files": int(row[1]), "bytes": int(row[2]), "seconds": row[3]}
                for row in formats
            },
        }
