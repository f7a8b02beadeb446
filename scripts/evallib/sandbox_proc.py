"""A sandbox server process for a benchmark run, and its request counter."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from opindex.child_process import announced_child

MAIN = Path(__file__).with_name("nodelay_main.py")
SCRIPTS = Path(__file__).resolve().parents[1]
LISTENING_PREFIX = "sandbox listening on "


def script_environment() -> dict[str, str]:
    """This process's environment with scripts/ on PYTHONPATH (for ``nodelay_main.py``)."""
    paths = [str(SCRIPTS), *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))]
    return {**os.environ, "PYTHONPATH": os.pathsep.join(paths), "PYTHONUNBUFFERED": "1"}


@dataclass
class SandboxProcess:
    """A running sandbox: its base URL and its ``/_sandbox/stats`` counter."""

    base_url: str
    process: subprocess.Popen[str]

    def stats(self) -> dict[str, Any]:
        response = httpx.get(f"{self.base_url}/_sandbox/stats", timeout=30)
        response.raise_for_status()
        data: dict[str, Any] = response.json()
        return data

    def requests(self) -> int:
        """API requests served so far."""
        return int(self.stats()["requests"])

    def reset_stats(self) -> None:
        httpx.post(f"{self.base_url}/_sandbox/stats/reset", timeout=30).raise_for_status()


@contextmanager
def sandbox_process(
    corpus: Path, *, latency_ms: float = 0.0, startup_timeout: float = 300.0
) -> Iterator[SandboxProcess]:
    """Serve *corpus* on a free loopback port for the duration of the block."""
    argv = [sys.executable, str(MAIN), "sandbox", "--corpus", str(corpus), "--port", "0"]
    if latency_ms:
        argv += ["--latency-ms", str(latency_ms)]
    with announced_child(
        argv,
        LISTENING_PREFIX,
        startup_seconds=startup_timeout,
        stop_seconds=15,
        env=script_environment(),
    ) as child:
        if child.announcement is None:
            raise RuntimeError(f"the sandbox did not start (first line {child.first_line!r})")
        yield SandboxProcess(child.announcement, child.process)
