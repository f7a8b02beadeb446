"""MCP clients for benchmarks: ``opindex serve`` over stdio or HTTP, and its tool answers."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcp import Client, StdioServerParameters
from mcp_types import CallToolResult

from evallib.sandbox_proc import script_environment
from evallib.search_paths import Answer
from opindex.child_process import announced_child
from opindex.search.document import Kind

NODELAY_MAIN = Path(__file__).with_name("nodelay_main.py")
SEARCH_TOOLS: dict[Kind, str] = {
    "work_package": "openproject_search_work_packages",
    "meeting": "openproject_search_meetings",
    "wiki_page": "openproject_search_wiki_pages",
}
LISTENING_PREFIX = "opindex MCP server listening on "


@dataclass(frozen=True, slots=True)
class TenantEntry:
    """One ``[[tenants]]`` table of a benchmark configuration file."""

    name: str
    base_url: str
    api_key: str


def _toml_string(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def write_config(path: Path, data_dir: Path, tenants: Sequence[TenantEntry]) -> Path:
    """A private (0600) opindex.toml for *tenants* reading *data_dir*."""
    lines = [f"data_dir = {_toml_string(str(data_dir.resolve()))}", ""]
    for tenant in tenants:
        lines += [
            "[[tenants]]",
            f"name = {_toml_string(tenant.name)}",
            f"base_url = {_toml_string(tenant.base_url)}",
            f"api_key = {_toml_string(tenant.api_key)}",
            "",
        ]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.touch(mode=0o600)
    path.chmod(0o600)
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


def stdio_client(config: Path, tenant: str) -> Client:
    """An MCP client that launches ``python -m opindex serve`` (stdio, no sync daemon)."""
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "opindex", "serve", "--config", str(config), "--tenant", tenant, "--no-sync"],
        env=dict(os.environ),
    )
    return Client(params, read_timeout_seconds=120)


def search_arguments(
    query: str, *, limit: int, source: str, fallback: bool = True
) -> dict[str, Any]:
    return {"query": query, "limit": limit, "source": source, "fallback": fallback}


def tool_answer(result: CallToolResult, seconds: float) -> Answer:
    """An Answer from a search tool's structured content (or its error)."""
    content = result.structured_content
    if result.is_error or not isinstance(content, dict):
        text = " ".join(getattr(part, "text", "") for part in result.content)
        return Answer(ids=(), seconds=seconds, error=text[:300] or "tool error")
    results = content.get("results", [])
    meta = content.get("meta", {})
    return Answer(
        ids=tuple(int(r["id"]) for r in results),
        scores=tuple(float(r.get("score", 0.0)) for r in results),
        titles=tuple(str(r.get("title", "")) for r in results),
        relaxed=meta.get("fallback_strategy") is not None,
        strategy=meta.get("fallback_strategy"),
        effective_query=meta.get("effective_query"),
        seconds=seconds,
        degraded=bool(meta.get("degraded")),
    )


async def call_search(
    client: Client, kind: Kind, query: str, *, limit: int = 10, source: str = "index"
) -> Answer:
    """One search tool call, timed at the client."""
    started = time.perf_counter()
    result = await client.call_tool(
        SEARCH_TOOLS[kind], search_arguments(query, limit=limit, source=source)
    )
    return tool_answer(result, time.perf_counter() - started)


@dataclass
class HttpServer:
    """A running ``opindex serve --transport http`` process."""

    url: str
    process: subprocess.Popen[str]

    def memory_kib(self) -> dict[str, int]:
        """Resident set of the server process in KiB: VmRSS, VmHWM (peak), and VmRSS split
        into RssAnon (heap: Python objects, Tantivy's own memory) and RssFile (mapped
        files: index segments, shared libraries)."""
        found: dict[str, int] = {}
        status = Path(f"/proc/{self.process.pid}/status").read_text(encoding="utf-8")
        for line in status.splitlines():
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM", "RssAnon", "RssFile"):
                found[key] = int(value.split()[0])
        return found


@contextmanager
def http_server(config: Path, *, startup_timeout: float = 120.0) -> Iterator[HttpServer]:
    """``opindex serve --transport http --port 0 --no-sync`` for the duration of the block."""
    argv = [sys.executable, str(NODELAY_MAIN), "serve", "--config", str(config),
            "--transport", "http", "--port", "0", "--no-sync"]  # fmt: skip
    with announced_child(
        argv,
        LISTENING_PREFIX,
        startup_seconds=startup_timeout,
        stop_seconds=20,
        env=script_environment(),
    ) as child:
        if child.announcement is None:
            raise RuntimeError(f"opindex serve did not start (first line {child.first_line!r})")
        yield HttpServer(child.announcement, child.process)
