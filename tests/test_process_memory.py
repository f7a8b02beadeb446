"""Capping malloc arenas for ``opindex serve`` (glibc)."""

from __future__ import annotations

import platform

import pytest

from opindex.process_memory import limit_malloc_arenas


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="mallopt arenas are glibc's")
def test_the_arena_cap_is_applied_on_glibc() -> None:
    assert limit_malloc_arenas(8) is True  # glibc's own default for this machine's cores
