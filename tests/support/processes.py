"""opindex as a real subprocess for tests: its argv and environment, the HTTP MCP server,
running without root's privilege over files, and waiting (with a deadline) for another process."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from opindex.child_process import announced_child


def wait_until(condition: Callable[[], bool], what: str, timeout: float = 90.0) -> None:
    """Poll ``condition`` until it holds; fail naming ``what`` after ``timeout`` seconds.

    Only for events of another process (a request reaching the sandbox, a lock taken by a
    subprocess): the test's own time is moved with an injected clock instead."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def opindex_argv(*args: str) -> list[str]:
    """``python -m opindex ARGS`` with the interpreter running the tests."""
    return [sys.executable, "-m", "opindex", *args]


def subprocess_env(**extra: str) -> dict[str, str]:
    """The environment for an opindex subprocess (unbuffered; no ambient configuration)."""
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("OPINDEX_CONFIG", "OPENPROJECT_URL", "OPENPROJECT_API_KEY")
    }
    env["PYTHONUNBUFFERED"] = "1"
    env.update(extra)
    return env


SERVE_READY = "opindex MCP server listening on "


@contextmanager
def http_server_process(
    config_path: Path,
    *extra: str,
    stderr_path: Path | None = None,
    verbose: bool = False,
    exit_codes: list[int] | None = None,
    pids: list[int] | None = None,
) -> Iterator[str]:
    """``opindex serve --transport http --port 0`` in a subprocess; yields the MCP URL.

    Its stderr goes to ``stderr_path`` (default: beside the config file); ``verbose``
    runs it with ``-v`` (every logger at DEBUG). On exit it gets SIGTERM and 30 s to
    stop (then SIGKILL); its exit code is appended to ``exit_codes``, its process id to
    ``pids``."""
    argv = opindex_argv(
        *(["-v"] if verbose else []),
        "serve",
        "--config",
        str(config_path),
        "--transport",
        "http",
        "--port",
        "0",
        *extra,
    )
    stderr_path = stderr_path or config_path.parent / "serve-stderr.txt"
    with (
        stderr_path.open("w", encoding="utf-8") as stderr,
        announced_child(
            argv,
            SERVE_READY,
            startup_seconds=90,
            stop_seconds=30,
            env=subprocess_env(),
            stderr=stderr,
        ) as child,
    ):
        try:
            if child.announcement is None:
                child.stop()
                detail = stderr_path.read_text(encoding="utf-8")
                raise AssertionError(f"serve did not start: {child.first_line!r}; {detail}")
            if pids is not None:
                pids.append(child.process.pid)
            yield child.announcement
        finally:
            if exit_codes is not None:
                exit_codes.append(child.stop(30))


def unprivileged_prefix(probe_dir: Path) -> tuple[str, ...]:
    """A command prefix under which file permissions bind, even when the tests run as root.

    Root ignores permission bits; ``unshare -U`` runs a command in a fresh user namespace
    where it holds no privilege over the files outside. Skips when neither works.
    """
    if os.geteuid() != 0:
        return ()
    unshare = shutil.which("unshare")
    if unshare is None:
        pytest.skip("running as root without unshare: permissions cannot be enforced")
    probe_dir.mkdir(parents=True, exist_ok=True)
    probe_dir.chmod(0o500)
    try:
        result = subprocess.run(
            [unshare, "-U", "touch", str(probe_dir / "probe")], capture_output=True, timeout=30
        )
    finally:
        probe_dir.chmod(0o700)
    if result.returncode == 0:
        pytest.skip("unshare -U does not drop the privilege over files here")
    return (unshare, "-U")
