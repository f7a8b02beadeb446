"""The search pool runs independent jobs in threads and hands back results in order."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest

from opindex.search import worker_pool
from opindex.search.worker_pool import run_all, set_threads


@pytest.fixture(autouse=True)
def two_threads() -> Iterator[None]:
    """Two threads whatever the machine's cores; the pool as it was afterwards."""
    before = worker_pool._threads
    set_threads(2)
    yield
    set_threads(before)


def test_results_come_back_in_the_order_of_the_jobs() -> None:
    gate = threading.Barrier(2, timeout=10)

    def job(value: int) -> tuple[int, str]:
        if value < 2:
            gate.wait()  # both first jobs run at once: in two threads, not one after another
        return value, threading.current_thread().name

    results = run_all([lambda v=v: job(v) for v in range(5)])  # type: ignore[misc]
    assert [value for value, _ in results] == [0, 1, 2, 3, 4]
    assert all(name.startswith("opindex-search") for _, name in results)


def test_one_job_runs_in_the_calling_thread() -> None:
    assert run_all([threading.current_thread]) == [threading.current_thread()]
    assert run_all([]) == []


def test_a_failing_job_raises_after_every_job_ended() -> None:
    ended: list[int] = []

    def job(value: int) -> int:
        if value == 1:
            raise ValueError("job 1 failed")
        ended.append(value)
        return value

    with pytest.raises(ValueError, match="job 1 failed"):
        run_all([lambda v=v: job(v) for v in range(4)])  # type: ignore[misc]
    assert sorted(ended) == [0, 2, 3]


def test_one_thread_runs_every_job_in_the_caller() -> None:
    set_threads(1)
    names = run_all([lambda: threading.current_thread().name] * 3)
    assert names == [threading.current_thread().name] * 3
    with pytest.raises(ValueError, match="at least 1"):
        set_threads(0)
