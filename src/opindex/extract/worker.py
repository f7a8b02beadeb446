"""The isolated extraction worker's loop, run as ``python -m opindex.extract FD``.

It is started by :class:`~opindex.extract.isolation.Extractor` as a fresh interpreter (not
a fork, nor a multiprocessing spawn, which would re-import the caller's ``__main__``), so
it imports only this package. It talks over the socket FD with pickled messages:
first ``(target "module:name", max_memory_bytes)``, then one request per file answered by
an :class:`~opindex.extract.outcome.Extraction` (or a traceback string on a bug). It
never writes to stdout.
"""

from __future__ import annotations

import importlib
import traceback
from multiprocessing.connection import Connection
from typing import Any

from opindex.extract.outcome import Extraction, Format, Outcome, Reason

READY = "ready"


def limit_address_space(max_bytes: int) -> None:
    """Lower this process's RLIMIT_AS soft limit to ``max_bytes`` (never above the hard
    limit); allocations past it fail (MemoryError) instead of swapping the host."""
    import resource  # Unix only: imported here so the package imports elsewhere

    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    soft = max_bytes if hard == resource.RLIM_INFINITY else min(max_bytes, hard)
    resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def load_target(spec: str) -> Any:
    """``"package.module:function"`` -> the function."""
    module_name, _, name = spec.partition(":")
    return getattr(importlib.import_module(module_name), name)


def serve(connection: Connection) -> None:
    """Answer requests until the parent sends None or goes away."""
    spec, max_memory_bytes = connection.recv()
    target = load_target(spec)
    limit_address_space(max_memory_bytes)
    connection.send(READY)
    while True:
        try:
            request = connection.recv()
        except EOFError:
            return
        if request is None:
            return
        source, file_name, content_type, limits = request
        reply: Extraction | str
        try:
            reply = target(source, file_name=file_name, content_type=content_type, limits=limits)
        except MemoryError:
            reply = Extraction("", Outcome.FAILED, Reason.MEMORY_LIMIT, Format.UNKNOWN)
        except Exception:
            reply = traceback.format_exc()
        del source, request  # free the input before the next one arrives
        connection.send(reply)
