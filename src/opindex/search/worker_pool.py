"""The threads one search on a large tenant spreads its independent numpy work over."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

T = TypeVar("T")

MAX_WORKERS = 4
PARALLEL_FROM_RECORDS = 250_000
"""A kind with this many records has its segments scored in the pool's threads."""
_pool: ThreadPoolExecutor | None = None
_lock = threading.Lock()


_threads = max(1, min(MAX_WORKERS, os.cpu_count() or 1))


def search_threads() -> int:
    """How many threads the pool uses."""
    return _threads


def set_threads(threads: int) -> None:
    """Use *threads* threads from now on (1: every job runs in the caller's thread)."""
    global _pool, _threads
    if threads < 1:
        raise ValueError(f"threads must be at least 1, got {threads}")
    with _lock:
        if _pool is not None and threads != _threads:
            _pool.shutdown(wait=True)
            _pool = None
        _threads = threads


def _workers() -> ThreadPoolExecutor:
    global _pool
    with _lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(_threads, thread_name_prefix="opindex-search")
        return _pool


def run_all(jobs: Sequence[Callable[[], T]]) -> list[T]:
    """The results of *jobs*, in order: run in the pool's threads when there are two or
    more and more than one thread (each job must not wait on another: none is queued
    behind the caller), else here. The first exception a job raises is raised here,
    after every job ended."""
    if len(jobs) < 2 or _threads == 1:
        return [job() for job in jobs]
    futures = [_workers().submit(job) for job in jobs]
    errors = [f.exception() for f in futures]
    for error in errors:
        if error is not None:
            raise error
    return [f.result() for f in futures]
