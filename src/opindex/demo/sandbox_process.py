"""The demo's OpenProject: ``opindex sandbox`` serving a corpus file, in a child process."""

from __future__ import annotations

import contextlib
import os
import select
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from opindex.errors import ConfigError

LISTENING_PREFIX = "sandbox listening on "
STARTUP_SECONDS = 60.0


@contextlib.contextmanager
def running_sandbox(corpus: Path, *, host: str = "127.0.0.1") -> Iterator[str]:
    """Serve ``corpus`` on a free port for the duration of the block; yields the base URL.

    Raises ConfigError (with the sandbox's own message) if it does not start.
    """
    argv = [sys.executable, "-m", "opindex", "sandbox", "--corpus", str(corpus)]
    argv += ["--host", host, "--port", "0"]
    with tempfile.TemporaryFile(mode="w+", encoding="utf-8") as stderr:
        process = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=stderr,
            text=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        try:
            yield _wait_until_listening(process, stderr)
        finally:
            _stop(process)


def _wait_until_listening(process: subprocess.Popen[str], stderr: IO[str]) -> str:
    line = ""
    if process.stdout is not None:
        ready, _, _ = select.select([process.stdout], [], [], STARTUP_SECONDS)
        line = process.stdout.readline().strip() if ready else ""
    if line.startswith(LISTENING_PREFIX):
        return line.removeprefix(LISTENING_PREFIX)
    _stop(process)
    stderr.seek(0)
    lines = stderr.read().strip().splitlines()
    detail = f": {lines[-1]}" if lines else ""
    raise ConfigError(f"the sandbox did not start{detail}")


def _stop(process: subprocess.Popen[str]) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)
    if process.stdout is not None:
        process.stdout.close()
