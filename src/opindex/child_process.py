"""Child processes that announce readiness on their first stdout line and stop on SIGTERM.

``opindex sandbox`` prints "sandbox listening on URL" and ``opindex serve --transport
http`` prints "opindex MCP server listening on URL" as their first line; the demo, the
benchmarks and the tests start them the same way through :func:`announced_child`.
"""

from __future__ import annotations

import contextlib
import select
import signal
import subprocess
from collections.abc import Iterator, Mapping, Sequence
from typing import IO


class Child:
    """A started child process and the first line it printed."""

    def __init__(self, process: subprocess.Popen[str], first_line: str, prefix: str) -> None:
        self.process = process
        self.first_line = first_line
        self._prefix = prefix

    @property
    def announcement(self) -> str | None:
        """What follows the ready prefix on the first line, or None if it did not start."""
        if self.first_line.startswith(self._prefix):
            return self.first_line.removeprefix(self._prefix)
        return None

    def stop(self, timeout: float = 10.0) -> int:
        """Stop the child now (see :func:`stop`); returns its exit code."""
        return stop(self.process, timeout)


def stop(process: subprocess.Popen[str], timeout: float = 10.0) -> int:
    """SIGTERM, up to ``timeout`` seconds to exit, then SIGKILL; returns the exit code."""
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=timeout)
    return process.returncode


@contextlib.contextmanager
def announced_child(
    argv: Sequence[str],
    ready_prefix: str,
    *,
    startup_seconds: float,
    stop_seconds: float = 10.0,
    env: Mapping[str, str] | None = None,
    stderr: IO[str] | int = subprocess.DEVNULL,
) -> Iterator[Child]:
    """Start ``argv`` (stdin closed, stdout piped) and wait up to ``startup_seconds`` for its
    first line; the block gets the Child (check ``announcement``: None means it did not
    start, ``first_line`` says what it printed instead). On exit the child is stopped."""
    process = subprocess.Popen(
        list(argv),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=stderr,
        text=True,
        env=None if env is None else dict(env),
    )
    try:
        assert process.stdout is not None
        ready, _, _ = select.select([process.stdout], [], [], startup_seconds)
        first_line = process.stdout.readline().strip() if ready else ""
        yield Child(process, first_line, ready_prefix)
    finally:
        stop(process, stop_seconds)
        if process.stdout is not None:
            process.stdout.close()
