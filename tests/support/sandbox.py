"""Start the real ``opindex sandbox`` server in a subprocess and drive its control endpoints."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
from tests.support.corpus_builder import (
    ADMIN_KEY,
    CLOSED_STATUS,
    IN_PROGRESS_STATUS,
    MEMBER_KEY,
    OPEN_STATUS,
    OUTSIDER_KEY,
    CorpusBuilder,
)

from opindex.child_process import announced_child

__all__ = [
    "ADMIN_KEY",
    "CLOSED_STATUS",
    "IN_PROGRESS_STATUS",
    "MEMBER_KEY",
    "OPEN_STATUS",
    "OUTSIDER_KEY",
    "CorpusBuilder",
    "SandboxHandle",
    "SandboxStartError",
    "running_sandbox",
    "sandbox_command",
]

# Keyword options of ``running_sandbox`` -> command-line flags of ``opindex sandbox``.
_VALUE_OPTIONS = {
    "latency_ms": "--latency-ms",
    "page_size_max": "--page-size-max",
    "meetings_api": "--meetings-api",
    "host": "--host",
    "webhook_url": "--webhook-url",
    "webhook_secret": "--webhook-secret",
}
_FLAG_OPTIONS = {"no_wiki_text": "--no-wiki-text", "wiki_list": "--wiki-list"}
LISTENING_PREFIX = "sandbox listening on "


class SandboxStartError(RuntimeError):
    """The sandbox subprocess exited or stayed silent instead of listening (test setup)."""


@dataclass
class SandboxHandle:
    """A running sandbox: its URL, its process, and helpers for the control endpoints."""

    base_url: str
    process: subprocess.Popen[str]
    corpus_path: Path

    @property
    def api_url(self) -> str:
        return f"{self.base_url}/api/v3"

    def client(self, api_key: str | None = ADMIN_KEY, **kwargs: Any) -> httpx.Client:
        """An httpx client for the API, authenticated with Basic ``apikey:<key>``."""
        auth = httpx.BasicAuth("apikey", api_key) if api_key is not None else None
        return httpx.Client(base_url=self.base_url, auth=auth, **kwargs)

    def get(
        self, path: str, api_key: str | None = ADMIN_KEY, params: dict[str, Any] | None = None
    ) -> httpx.Response:
        """One GET (path relative to the server root, e.g. ``/api/v3/work_packages``)."""
        with self.client(api_key) as client:
            return client.get(path, params=params)

    def _control(self, method: str, path: str, body: Any = None) -> dict[str, Any]:
        response = httpx.request(method, f"{self.base_url}{path}", json=body, timeout=10)
        if response.status_code >= 400:
            raise AssertionError(f"{method} {path} -> {response.status_code}: {response.text}")
        result: dict[str, Any] = response.json()
        return result

    def stats(self) -> dict[str, Any]:
        """``{"requests": N, "by_path": {literal path: count}}`` of /api/v3 requests."""
        return self._control("GET", "/_sandbox/stats")

    def reset_stats(self) -> None:
        self._control("POST", "/_sandbox/stats/reset")

    def fault(
        self,
        path_prefix: str,
        status: int | None = None,
        count: int = 1,
        retry_after: int | None = None,
        hang: float | None = None,
    ) -> None:
        """Make the next *count* requests under *path_prefix* hang and/or fail."""
        body: dict[str, Any] = {"path_prefix": path_prefix, "count": count}
        if status is not None:
            body["status"] = status
        if retry_after is not None:
            body["retry_after"] = retry_after
        if hang is not None:
            body["hang"] = hang
        self._control("POST", "/_sandbox/faults", body)

    def clear_faults(self) -> None:
        self._control("DELETE", "/_sandbox/faults")

    def mutate(self, op: str, kind: str, record: dict[str, Any]) -> dict[str, Any]:
        """Upsert or delete a record of the live corpus; returns the control response."""
        return self._control("POST", "/_sandbox/mutate", {"op": op, "kind": kind, "record": record})

    def terminate(self, timeout: float = 10.0) -> int:
        """SIGTERM, then wait; returns the exit code."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        return self.process.wait(timeout=timeout)

    def kill(self) -> None:
        """SIGKILL: the server disappears mid-flight."""
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(timeout=10)


def sandbox_command(corpus_path: Path, *, full_cli: bool = False, **options: Any) -> list[str]:
    """The argv that starts ``opindex sandbox`` on a free port with *options*.

    By default through ``python -m opindex.sandbox`` (the same command, without loading
    the other sub-commands); ``full_cli=True`` goes through ``python -m opindex sandbox``.
    """
    entry = ["opindex", "sandbox"] if full_cli else ["opindex.sandbox"]
    argv = [sys.executable, "-m", *entry, "--corpus", str(corpus_path)]
    argv += ["--port", str(options.pop("port", 0))]
    for name, value in options.items():
        if name in _VALUE_OPTIONS:
            if value is not None:
                argv += [_VALUE_OPTIONS[name], str(value)]
        elif name in _FLAG_OPTIONS:
            if value:
                argv.append(_FLAG_OPTIONS[name])
        else:
            raise TypeError(f"unknown sandbox option {name!r}")
    return argv


@contextmanager
def running_sandbox(
    corpus: dict[str, Any] | Path,
    *,
    startup_timeout: float = 120.0,
    full_cli: bool = False,
    **options: Any,
) -> Iterator[SandboxHandle]:
    """Run ``opindex sandbox`` on a free port for the duration of the block.

    *corpus* is a corpus dict (written to a temporary file) or a corpus file path.
    *options*: ``latency_ms``, ``page_size_max``, ``no_wiki_text``, ``wiki_list``,
    ``meetings_api``, ``host``. ``full_cli`` starts it through ``python -m opindex
    sandbox`` instead of ``python -m opindex.sandbox``. The server is terminated (then
    killed) on exit.
    """
    workdir = Path(tempfile.mkdtemp(prefix="opindex-sandbox-"))
    if isinstance(corpus, Path):
        corpus_path = corpus
    else:
        corpus_path = workdir / "corpus.json"
        corpus_path.write_text(json.dumps(corpus), encoding="utf-8")
    stderr_path = workdir / "stderr.txt"
    try:
        with (
            stderr_path.open("w", encoding="utf-8") as stderr,
            announced_child(
                sandbox_command(corpus_path, full_cli=full_cli, **options),
                LISTENING_PREFIX,
                startup_seconds=startup_timeout,
                env={**os.environ, "PYTHONUNBUFFERED": "1"},
                stderr=stderr,
            ) as child,
        ):
            if child.announcement is None:
                code = child.stop()
                detail = stderr_path.read_text(encoding="utf-8").strip()
                printed = repr(child.first_line) if child.first_line else "nothing"
                raise SandboxStartError(
                    f"the sandbox printed {printed} within {startup_timeout} s instead of "
                    f"{LISTENING_PREFIX!r}; exit code {code}; {detail}"
                )
            yield SandboxHandle(
                base_url=child.announcement, process=child.process, corpus_path=corpus_path
            )
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
