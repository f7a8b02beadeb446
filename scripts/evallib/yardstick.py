"""How fast this machine runs one fixed workload now, to compare runs of different hours.

The same code measured 2.4 times slower on one day than on another on the same kind of
machine (docs/DECISIONS.md D182): a latency figure means little without
the machine's speed beside it. The workload is a pure-Python loop and a NumPy sort, the two
kinds of work a search does; its CPU time is taken on this thread, the median of a few runs.
"""

from __future__ import annotations

import statistics
import time

import numpy as np

_LOOP = 1_000_000
_SORTED = 1_000_000


def _python_loop() -> int:
    total = 0
    for i in range(_LOOP):
        total += i * i % 7
    return total


def _numpy_sort(values: np.ndarray) -> float:
    return float(np.sort(values)[_SORTED // 2])


def yardstick(runs: int = 3) -> dict[str, float]:
    """CPU milliseconds of the loop and of the sort (median of *runs*; smaller is faster)."""
    if runs < 1:
        raise ValueError("runs must be at least 1")
    values = np.random.default_rng(7).random(_SORTED)
    loop, sort = [], []
    for _ in range(runs):
        start = time.thread_time()
        _python_loop()
        middle = time.thread_time()
        _numpy_sort(values)
        loop.append((middle - start) * 1000)
        sort.append((time.thread_time() - middle) * 1000)
    return {
        "python_loop_ms": round(statistics.median(loop), 1),
        "numpy_sort_ms": round(statistics.median(sort), 1),
    }


def describe(figures: dict[str, float]) -> str:
    """One phrase for a page: ``Python loop 120 ms, NumPy sort 18 ms``."""
    return (
        f"Python loop {figures['python_loop_ms']:.0f} ms, "
        f"NumPy sort {figures['numpy_sort_ms']:.0f} ms"
    )
