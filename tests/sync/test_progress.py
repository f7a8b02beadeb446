"""The terminal progress line: counts per kind, rate, throttled redraws, final newline."""

from __future__ import annotations

import io

from opindex.sync import TerminalProgress


class FakeTime:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_progress_line_counts_kinds_and_rate() -> None:
    stream, now = io.StringIO(), FakeTime()
    progress = TerminalProgress(stream, min_interval=1.0, clock=now)
    progress.phase("acme", "work packages")
    now.now += 2.0
    progress.documents("work_package", 300)
    progress.documents("meeting", 100)  # within min_interval of the last draw: not drawn
    assert progress.line() == (
        "acme: work packages | work packages 300 · wiki pages 0 · meetings 100 | 200 docs/s"
    )
    drawn = stream.getvalue().split("\r")[1:]
    assert len(drawn) == 2 and "meetings 0" in drawn[-1]
    progress.done()
    assert stream.getvalue().endswith("meetings 100 | 200 docs/s\n")


def test_a_new_tenant_starts_from_zero() -> None:
    stream, now = io.StringIO(), FakeTime()
    progress = TerminalProgress(stream, clock=now)
    progress.phase("acme", "wiki pages")
    progress.documents("wiki_page", 5)
    progress.done()
    progress.phase("beta", "projects")
    assert "wiki pages 0" in progress.line() and progress.line().startswith("beta: projects")
