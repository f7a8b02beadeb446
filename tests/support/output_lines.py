"""Read a subprocess's output line by line with a deadline, without select() on a buffered pipe.

``select()`` on ``process.stdout`` only sees what is still in the OS pipe: once
``readline()`` has pulled a chunk holding several lines into Python's buffer, the rest
of those lines are invisible to ``select()``, which then waits for output that already
arrived. A reader thread feeding a queue has no such blind spot.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable
from typing import IO

_EOF = None


class OutputLines:
    """Lines of ``stream`` as they arrive, read by a daemon thread."""

    def __init__(self, stream: IO[str]) -> None:
        self._queue: queue.Queue[str | None] = queue.Queue()
        self.lines: list[str] = []
        self.closed = False
        threading.Thread(target=self._pump, args=(stream,), daemon=True).start()

    def _pump(self, stream: IO[str]) -> None:
        for line in stream:
            self._queue.put(line)
        self._queue.put(_EOF)

    def until(self, done: Callable[[str], bool], *, timeout: float) -> str:
        """Read until a line satisfies ``done``; returns everything read so far.

        Fails with the output read so far if the stream closes first or ``timeout``
        seconds pass.
        """
        deadline = time.monotonic() + timeout
        while not (self.lines and done(self.lines[-1])):
            if not self._read_one(deadline):
                raise AssertionError(f"the output ended early:\n{''.join(self.lines)}")
        return "".join(self.lines)

    def rest(self, *, timeout: float) -> str:
        """Everything until the stream closes (fails after ``timeout`` seconds)."""
        deadline = time.monotonic() + timeout
        while self._read_one(deadline):
            pass
        return "".join(self.lines)

    def _read_one(self, deadline: float) -> bool:
        """Append the next line; False once the stream has closed."""
        if self.closed:
            return False
        try:
            line = self._queue.get(timeout=max(deadline - time.monotonic(), 0))
        except queue.Empty:
            raise AssertionError(f"no output in time:\n{''.join(self.lines)}") from None
        if line is _EOF:
            self.closed = True
            return False
        self.lines.append(line)
        return True
