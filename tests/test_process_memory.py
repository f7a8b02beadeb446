"""Memory settings of ``opindex serve``: malloc arenas (glibc) and the collector thresholds."""

from __future__ import annotations

import gc
import platform

import pytest

from opindex.process_memory import (
    M_ARENA_MAX,
    SERVER_GC_THRESHOLDS,
    limit_malloc_arenas,
    tune_garbage_collector,
)


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="mallopt arenas are glibc's")
def test_the_arena_cap_is_applied_on_glibc() -> None:
    assert limit_malloc_arenas(8) is True  # glibc's own default for this machine's cores


def test_the_server_shares_one_arena_between_its_threads(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[int, int]] = []

    class Mallopt:
        argtypes: object = None
        restype: object = None

        def __call__(self, parameter: int, value: int) -> int:
            calls.append((parameter, value))
            return 1

    class Libc:
        mallopt = Mallopt()

    monkeypatch.setattr("ctypes.util.find_library", lambda name: "libc.so.6")
    monkeypatch.setattr("ctypes.CDLL", lambda name: Libc())
    assert limit_malloc_arenas() is True
    assert calls == [(M_ARENA_MAX, 1)]  # DECISIONS D147


def test_the_server_collects_cyclic_garbage_less_often() -> None:
    before = gc.get_threshold()
    try:
        tune_garbage_collector()
        assert gc.get_threshold() == SERVER_GC_THRESHOLDS
        assert SERVER_GC_THRESHOLDS[0] > before[0]
    finally:
        gc.set_threshold(*before)
