"""Memory and garbage-collector settings of a long-lived opindex process (``opindex serve``).

Searches run in worker threads, and glibc's malloc gives every thread that allocates
concurrently an arena of its own (up to 8 per core). Memory freed in one arena is not
reused by another, so a server answering searches in parallel keeps the peak of every
arena resident. One arena, shared by every thread, trades a little allocation contention
(the GIL serialises most of it anyway) for a lower peak (DECISIONS D77, D147).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import logging

logger = logging.getLogger(__name__)

SERVER_GC_THRESHOLDS = (10_000, 10, 10)
"""A search allocates tens of thousands of short-lived objects (decoded records, tokens),
which trip CPython's default first-generation threshold (700) over and over: cyclic
collection took 15–30 % of the CPU of an index search. None of those objects form cycles,
so collecting less often frees the same memory, later."""

M_ARENA_MAX = -8  # glibc's mallopt() parameter number (malloc.h)
SERVER_MALLOC_ARENAS = 1  # two cost 2 MiB more at the peak (DECISIONS D147)


def limit_malloc_arenas(arenas: int = SERVER_MALLOC_ARENAS) -> bool:
    """Cap glibc's malloc arenas for threads created from now on; False where the C
    library is not glibc (nothing changes there)."""
    name = ctypes.util.find_library("c")
    if name is None:
        return False
    try:
        libc = ctypes.CDLL(name)
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    applied = bool(mallopt(M_ARENA_MAX, arenas))
    logger.debug("malloc arenas capped at %d: %s", arenas, applied)
    return applied


def tune_garbage_collector(thresholds: tuple[int, int, int] = SERVER_GC_THRESHOLDS) -> None:
    """Collect cyclic garbage less often (see SERVER_GC_THRESHOLDS)."""
    gc.set_threshold(*thresholds)
