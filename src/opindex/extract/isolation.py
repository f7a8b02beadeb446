"""Extraction of untrusted files in a child process: an address-space limit, a hard
timeout that kills the worker, and an async API that never blocks the event loop.

One worker process (a fresh interpreter running :mod:`opindex.extract.worker`: no
inherited threads, locks, event loop or ``__main__``) serves one file at a time. On a
timeout it is killed and the next file starts a fresh one; a worker that dies (a signal,
an abort in native code) is reported as ``failed/crashed``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from multiprocessing.connection import Connection
from types import TracebackType
from typing import Self

from opindex.errors import OpindexError
from opindex.extract.detection import declared_format
from opindex.extract.dispatch import DEFAULT_LIMITS, extract_text
from opindex.extract.limits import ExtractionLimits
from opindex.extract.outcome import Extraction, Outcome, Reason
from opindex.extract.source import Source
from opindex.extract.worker import READY

logger = logging.getLogger(__name__)

_JOIN_SECONDS = 5.0


DEFAULT_TARGET = "opindex.extract.dispatch:extract_text"
"""The function the worker runs, as ``module:name`` (tests name a stand-in with the same
signature as :func:`~opindex.extract.dispatch.extract_text`)."""


class ExtractorClosedError(OpindexError):
    """An Extractor was used after :meth:`Extractor.close`."""


class ExtractorStartError(OpindexError):
    """The worker process did not start or did not report ready in time."""


class _Worker:
    def __init__(self, process: subprocess.Popen[bytes], connection: Connection) -> None:
        self.process = process
        self.connection = connection

    def stop(self, *, kill: bool) -> None:
        if not kill:
            with contextlib.suppress(OSError):
                self.connection.send(None)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(_JOIN_SECONDS)
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        self.connection.close()

    def death(self) -> str:
        try:
            code = self.process.wait(_JOIN_SECONDS)
        except subprocess.TimeoutExpired:
            return "worker hung up"
        if code < 0:
            return f"worker killed by {signal.Signals(-code).name}"
        return f"worker exited with {code}"


def _declared_size(source: Source) -> int | None:
    if isinstance(source, bytes | bytearray | memoryview):
        return len(source)
    try:
        return os.stat(source).st_size
    except (OSError, TypeError):
        return None  # the worker reports it


class Extractor:
    """Runs :func:`~opindex.extract.dispatch.extract_text` in a child process under
    ``limits`` (RLIMIT_AS = ``max_memory_bytes``; killed after ``max_seconds`` plus
    ``kill_grace_seconds``). Thread-safe; one file at a time. Close it (or use it as a
    context manager) to stop the worker."""

    def __init__(
        self,
        limits: ExtractionLimits = DEFAULT_LIMITS,
        *,
        kill_grace_seconds: float = 2.0,
        start_seconds: float = 30.0,
        target: str = DEFAULT_TARGET,
    ) -> None:
        self.limits = limits
        self._grace = kill_grace_seconds
        self._start_seconds = start_seconds
        self._target = target
        self._lock = threading.Lock()
        self._worker: _Worker | None = None
        self._closed = False
        self.workers_started = 0

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        await asyncio.to_thread(self.close)

    def close(self) -> None:
        """Stop the worker; later calls raise :class:`ExtractorClosedError`."""
        with self._lock:
            self._closed = True
            if self._worker is not None:
                self._worker.stop(kill=False)
                self._worker = None

    async def extract(
        self, source: Source, *, file_name: str, content_type: str | None = None
    ) -> Extraction:
        """:meth:`extract_sync` in a thread, so the event loop keeps running meanwhile."""
        return await asyncio.to_thread(
            self.extract_sync, source, file_name=file_name, content_type=content_type
        )

    def extract_sync(
        self, source: Source, *, file_name: str, content_type: str | None = None
    ) -> Extraction:
        """Extract one file in the worker, blocking the calling thread until it is done;
        a timeout or a dead worker is an outcome, not an exception."""
        size = _declared_size(source)
        if size is not None and (size > self.limits.max_bytes or size == 0):
            # extract_text reads nothing of a file over the limit or of an empty one: no
            # need for the worker
            return extract_text(
                source, file_name=file_name, content_type=content_type, limits=self.limits
            )
        with self._lock:
            if self._closed:
                raise ExtractorClosedError("the extractor is closed")
            return self._run(source, file_name, content_type, size or 0)

    def _run(
        self, source: Source, file_name: str, content_type: str | None, size: int
    ) -> Extraction:
        worker = self._worker or self._start()
        started = time.monotonic()
        fmt = declared_format(file_name, content_type)

        def ended(outcome: Outcome, reason: Reason, detail: str) -> Extraction:
            return Extraction(
                "", outcome, reason, fmt, size_bytes=size,
                seconds=time.monotonic() - started, detail=detail,
            )  # fmt: skip

        try:
            worker.connection.send((source, file_name, content_type, self.limits))
            answered = worker.connection.poll(self.limits.max_seconds + self._grace)
        except OSError:
            answered = True  # the worker is gone; recv() below says so
        if not answered:
            self._discard(kill=True)
            return ended(Outcome.FAILED, Reason.TIMEOUT, "worker killed")
        try:
            reply = worker.connection.recv()
        except (EOFError, OSError):
            detail = worker.death()
            self._discard(kill=True)
            return ended(Outcome.FAILED, Reason.CRASHED, detail)
        if isinstance(reply, str):
            logger.error("text extraction raised in the worker:\n%s", reply)
            return ended(Outcome.FAILED, Reason.INTERNAL_ERROR, reply.strip().splitlines()[-1])
        assert isinstance(reply, Extraction)
        if reply.reason is Reason.MEMORY_LIMIT:
            self._discard(kill=True)  # a MemoryError can leave the worker in a bad state
        return reply

    def _start(self) -> _Worker:
        parent_end, child_end = socket.socketpair()
        environment = dict(os.environ)
        environment["PYTHONPATH"] = os.pathsep.join(path for path in sys.path if path)
        try:
            process = subprocess.Popen(
                [sys.executable, "-m", "opindex.extract", str(child_end.fileno())],
                pass_fds=(child_end.fileno(),),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,  # stdout may be the MCP stdio transport
                env=environment,
            )
        finally:
            child_end.close()
        connection = Connection(parent_end.detach())
        worker = _Worker(process, connection)
        try:
            connection.send((self._target, self.limits.max_memory_bytes))
            ready = connection.poll(self._start_seconds) and connection.recv() == READY
        except (EOFError, OSError):
            ready = False
        if not ready:
            worker.stop(kill=True)
            raise ExtractorStartError("the extraction worker did not start")
        self._worker = worker
        self.workers_started += 1
        return worker

    def _discard(self, *, kill: bool) -> None:
        if self._worker is not None:
            self._worker.stop(kill=kill)
            self._worker = None
