"""ExtractionCounts tallies outcomes, reasons and per-format cost; the sink tidies text."""

from __future__ import annotations

import json

import pytest

from opindex.extract import Extraction, ExtractionCounts, Format, Outcome, Reason
from opindex.extract.sink import Stop, TextSink


def _result(fmt: Format, outcome: Outcome, reason: Reason | None, text: str = "") -> Extraction:
    return Extraction(text, outcome, reason, fmt, size_bytes=1000, seconds=0.5)


def test_counts_add_merge_and_serialise() -> None:
    first, second = ExtractionCounts(), ExtractionCounts()
    first.add(_result(Format.PDF, Outcome.EXTRACTED, None, "hello"))
    first.add(_result(Format.PDF, Outcome.SKIPPED, Reason.ENCRYPTED))
    second.add(_result(Format.DOCX, Outcome.TRUNCATED, Reason.TEXT_LIMIT, "abc"))
    first.merge(second)
    summary = first.as_dict()
    assert json.loads(json.dumps(summary)) == summary
    assert summary["files"] == 3
    assert summary["by_outcome"] == {
        "extracted": 1,
        "truncated": 1,
        "skipped": 1,
        "failed": 0,
        "empty": 0,
    }
    assert summary["by_reason"] == {"encrypted": 1, "text_limit": 1}
    assert summary["by_format"] == {
        "docx": {"files": 1, "bytes": 1000, "seconds": 0.5, "chars": 3, "bytes_per_second": 2000},
        "pdf": {"files": 2, "bytes": 2000, "seconds": 1.0, "chars": 5, "bytes_per_second": 2000},
    }


def test_the_sink_tidies_whitespace_and_drops_control_characters() -> None:
    sink = TextSink(max_chars=1000, max_seconds=10)
    sink.add("  a \t b\xa0\xa0c \n  d  \n\n\n\n e \r\n f\x00g\u2028h ")
    assert sink.text() == "a b c\nd\n\ne\nfg\nh"


def test_the_sink_keeps_what_fits_and_stops() -> None:
    sink = TextSink(max_chars=5, max_seconds=10)
    sink.add("abc")
    with pytest.raises(Stop) as stopped:
        sink.add("defgh")
    assert (stopped.value.outcome, stopped.value.reason) == (Outcome.TRUNCATED, Reason.TEXT_LIMIT)
    assert sink.text() == "abcde"
