"""Memory settings of ``opindex serve``: malloc arenas (glibc) and the collector thresholds."""

from __future__ import annotations

import gc
import platform

import pytest

from opindex.process_memory import (
    SERVER_GC_THRESHOLDS,
    limit_malloc_arenas,
    tune_garbage_collector,
)


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="mallopt arenas are glibc's")
def test_the_arena_cap_is_applied_on_glibc() -> None:
    assert limit_malloc_arenas(8) is True  # glibc's own default for this machine's cores


def test_the_server_collects_cyclic_garbage_less_often() -> None:
    before = gc.get_threshold()
    try:
        tune_garbage_collector()
        assert gc.get_threshold() == SERVER_GC_THRESHOLDS
        assert SERVER_GC_THRESHOLDS[0] > before[0]
    finally:
        gc.set_threshold(*before)
