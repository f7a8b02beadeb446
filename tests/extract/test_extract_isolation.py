"""The isolated Extractor: results from a worker process, hard timeouts that kill and
recover, crashes and memory exhaustion reported as outcomes, an event loop never blocked."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from opindex.extract import (
    ExtractionLimits,
    Extractor,
    ExtractorClosedError,
    Format,
    Outcome,
    Reason,
    samples,
)

STAND_IN = "tests.extract.stand_ins:misbehave"
MIB = 1024 * 1024


@pytest.fixture
def extractor() -> Iterator[Extractor]:
    limits = ExtractionLimits(max_seconds=0.5, max_memory_bytes=768 * MIB)
    with Extractor(limits, kill_grace_seconds=0.5, target=STAND_IN) as running:
        yield running


def test_the_worker_extracts_like_extract_text(extractor: Extractor) -> None:
    result = extractor.extract_sync(samples.docx_document(["Müller Straße"]), file_name="a.docx")
    assert (result.outcome, result.format, result.text) == (
        Outcome.EXTRACTED,
        Format.DOCX,
        "Müller Straße",
    )
    assert extractor.extract_sync(b"zweite", file_name="b.txt").text == "zweite"
    assert extractor.workers_started == 1  # one worker serves file after file


def test_a_path_is_read_by_the_worker(extractor: Extractor, tmp_path: Path) -> None:
    path = tmp_path / "a.pdf"
    path.write_bytes(samples.pdf_document([["vom Datenträger"]]))
    assert extractor.extract_sync(path, file_name="a.pdf").text == "vom Datenträger"


def test_a_hung_worker_is_killed_and_the_next_file_gets_a_new_one(extractor: Extractor) -> None:
    started = time.monotonic()
    result = extractor.extract_sync(b"x", file_name="hang.txt")
    elapsed = time.monotonic() - started
    assert (result.outcome, result.reason) == (Outcome.FAILED, Reason.TIMEOUT)
    assert 1.0 <= elapsed < 5.0  # max_seconds + grace, then the kill
    assert extractor.extract_sync(b"recovered", file_name="a.txt").text == "recovered"
    assert extractor.workers_started == 2


def test_a_crashed_worker_is_reported_not_raised(extractor: Extractor) -> None:
    result = extractor.extract_sync(b"x", file_name="crash.txt")
    assert (result.outcome, result.reason) == (Outcome.FAILED, Reason.CRASHED)
    assert result.detail == "worker killed by SIGSEGV"
    assert extractor.extract_sync(b"after crash", file_name="a.txt").text == "after crash"


def test_the_address_space_limit_turns_a_memory_hog_into_an_outcome(extractor: Extractor) -> None:
    result = extractor.extract_sync(b"x", file_name="hog.txt")
    assert (result.outcome, result.reason) == (Outcome.FAILED, Reason.MEMORY_LIMIT)
    assert extractor.extract_sync(b"still here", file_name="a.txt").text == "still here"
    assert extractor.workers_started == 2  # the worker that ran out was replaced


def test_a_bug_in_the_worker_is_an_internal_error_outcome(
    extractor: Extractor, caplog: pytest.LogCaptureFixture
) -> None:
    result = extractor.extract_sync(b"x", file_name="bug.txt")
    assert (result.outcome, result.reason) == (Outcome.FAILED, Reason.INTERNAL_ERROR)
    assert "ZeroDivisionError" in (result.detail or "")
    assert "a bug in the extractor" in caplog.text


def test_a_file_over_the_size_limit_never_reaches_a_worker(tmp_path: Path) -> None:
    path = tmp_path / "huge.bin"
    with path.open("wb") as sparse:
        sparse.truncate(200 * MIB)
    with Extractor() as extractor:
        result = extractor.extract_sync(path, file_name="huge.bin")
        assert (result.outcome, result.reason) == (Outcome.SKIPPED, Reason.TOO_LARGE)
        assert extractor.workers_started == 0


def test_a_closed_extractor_refuses_work() -> None:
    extractor = Extractor(target=STAND_IN)
    assert extractor.extract_sync(b"once", file_name="a.txt").text == "once"
    extractor.close()
    with pytest.raises(ExtractorClosedError):
        extractor.extract_sync(b"twice", file_name="a.txt")


async def test_the_async_api_leaves_the_event_loop_running(extractor: Extractor) -> None:
    await extractor.extract(b"warm up", file_name="a.txt")  # start the worker first
    ticks = 0

    async def tick() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(0.01)
            ticks += 1

    ticker = asyncio.create_task(tick())
    result = await extractor.extract(b"slow", file_name="slow.txt")  # 0.3 s in the worker
    ticker.cancel()
    assert result.text == "slow"
    assert ticks >= 10  # a blocked loop would have ticked at most once
