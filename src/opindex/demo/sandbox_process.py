"""The demo's OpenProject: ``opindex sandbox`` serving a corpus file, in a child process."""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

from opindex.child_process import announced_child
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
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    with (
        tempfile.TemporaryFile(mode="w+", encoding="utf-8") as stderr,
        announced_child(
            argv, LISTENING_PREFIX, startup_seconds=STARTUP_SECONDS, env=env, stderr=stderr
        ) as child,
    ):
        if child.announcement is None:
            child.stop()
            stderr.seek(0)
            lines = stderr.read().strip().splitlines()
            detail = f": {lines[-1]}" if lines else ""
            raise ConfigError(f"the sandbox did not start{detail}")
        yield child.announcement
