"""Concurrent MCP clients over HTTP searching while syncs commit to the same tenant.

python scripts/bench_load.py --clients 8 --searches 200

Serves a generated sandbox corpus, syncs tenant ``load`` in full, starts
``opindex serve --transport http --no-sync`` on it, then runs CLIENTS MCP clients (one
session each) doing SEARCHES searches each, all at once, while a writer in this process
changes work packages in the sandbox and runs incremental syncs of the same tenant, each
committing to the index the server is reading. Every client keeps searching until the
writer has committed at least --min-commits times, so reads and commits really overlap
(--min-commits 0: the same searches without any sync, as a baseline).
Prints errors, latency percentiles, commits and the server's CPU time per search (its
share of the machine, which contention between processes changes less than latency);
exits 1 if any search failed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from opindex.child_process import announced_child
from opindex.config import load_config
from opindex.sandbox.corpus_gen import ADMIN_KEY, CorpusSize, generate_corpus, write_corpus
from opindex.sync import sync_tenant

TENANT = "load"
SEARCH_TOOLS = (
    "openproject_search_work_packages",
    "openproject_search_meetings",
    "openproject_search_wiki_pages",
)
SANDBOX_READY = "sandbox listening on "
SERVE_READY = "opindex MCP server listening on "


@dataclass
class LoadResult:
    """What a load run observed."""

    latencies: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    answered_live: int = 0
    commits: int = 0
    commits_during_load: int = 0
    sync_errors: list[str] = field(default_factory=list)
    seconds: float = 0.0
    server_cpu_s: float | None = None
    """CPU time (user + system) of the server process during the load."""

    @property
    def searches(self) -> int:
        return len(self.latencies) + len(self.errors)

    def percentile(self, share: float) -> float:
        """Latency (ms) below which ``share`` of the successful searches finished."""
        ordered = sorted(self.latencies)
        if not ordered:
            return float("nan")
        index = min(len(ordered) - 1, max(0, round(share * len(ordered)) - 1))
        return ordered[index] * 1000

    def summary(self) -> dict[str, Any]:
        return {
            "searches": self.searches,
            "errors": len(self.errors),
            "answered_live": self.answered_live,
            "p50_ms": round(self.percentile(0.50), 1),
            "p95_ms": round(self.percentile(0.95), 1),
            "max_ms": round(max(self.latencies, default=0.0) * 1000, 1),
            "mean_ms": round(statistics.fmean(self.latencies) * 1000, 1)
            if self.latencies
            else None,
            "throughput_per_s": round(self.searches / self.seconds, 1) if self.seconds else None,
            "commits_during_load": self.commits_during_load,
            "commits": self.commits,
            "sync_errors": len(self.sync_errors),
            "wall_s": round(self.seconds, 2),
            "server_cpu_ms_per_search": round(1000 * self.server_cpu_s / self.searches, 2)
            if self.server_cpu_s is not None and self.searches
            else None,
        }


def query_words(corpus: dict[str, Any], count: int = 60) -> list[str]:
    """Queries made of words of work package subjects (some with a typo)."""
    words: list[str] = []
    for record in corpus["work_packages"][: count * 4]:
        words.extend(word for word in str(record["subject"]).split() if len(word) > 4)
    chosen = sorted(set(words))[:count] or ["certificate"]
    queries = []
    for number, word in enumerate(chosen):
        if number % 3 == 0:
            word = word[:-2] + word[-1] + word[-2]  # swap the last two letters
        queries.append(word.lower())
    return queries


class Writer:
    """Changes work packages in the sandbox and syncs the tenant, until stopped."""

    def __init__(self, config_path: Path, sandbox_url: str, work_packages: Sequence[int]) -> None:
        self._config = load_config(config_path)
        self._sandbox_url = sandbox_url
        self._ids = list(work_packages)
        self._stop = threading.Event()
        self._round = 0
        self.commit_times: list[float] = []
        self.errors: list[str] = []
        self.thread = threading.Thread(target=self._run, name="load-writer", daemon=True)

    def start(self) -> None:
        self.thread.start()

    def stop(self) -> None:
        self._stop.set()
        self.thread.join(timeout=300)

    def _run(self) -> None:
        tenant = self._config.tenant(TENANT)
        while not self._stop.is_set():
            self._round += 1
            for wp_id in self._ids[(self._round * 5) % len(self._ids) :][:5]:
                record = {"id": wp_id, "subject": f"Load round {self._round} item {wp_id}"}
                httpx.post(
                    f"{self._sandbox_url}/_sandbox/mutate",
                    json={"op": "upsert", "kind": "work_packages", "record": record},
                    timeout=60,
                ).raise_for_status()
            try:
                asyncio.run(sync_tenant(tenant, self._config.data_dir))
            except Exception as error:  # the run reports every failure
                self.errors.append(f"{type(error).__name__}: {error}")
                continue
            self.commit_times.append(time.monotonic())


async def _client(
    url: str,
    key: str,
    queries: Sequence[str],
    searches: int,
    number: int,
    result: LoadResult,
    enough_commits: threading.Event,
) -> None:
    headers = {"Authorization": f"Bearer {key}"}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=120) as http,
        Client(streamable_http_client(url, http_client=http)) as client,
    ):
        done = 0
        while done < searches or not enough_commits.is_set():
            query = queries[(number * 7 + done) % len(queries)]
            tool = SEARCH_TOOLS[(number + done) % len(SEARCH_TOOLS)]
            started = time.perf_counter()
            try:
                answer = await client.call_tool(tool, {"query": query, "limit": 20})
            except Exception as error:  # any failure of a call is what this run measures
                result.errors.append(f"{tool}({query!r}): {type(error).__name__}: {error}")
            else:
                elapsed = time.perf_counter() - started
                if answer.is_error:
                    text = " ".join(getattr(block, "text", "") for block in answer.content)
                    result.errors.append(f"{tool}({query!r}): {text[:300]}")
                else:
                    result.latencies.append(elapsed)
                    meta = (answer.structured_content or {}).get("meta", {})
                    result.answered_live += meta.get("source") == "live"
            done += 1


async def run_load(
    url: str,
    key: str,
    queries: Sequence[str],
    *,
    clients: int,
    searches: int,
    writer: Writer,
    min_commits: int,
) -> LoadResult:
    """Run the clients against ``url`` while ``writer`` syncs; returns what happened."""
    result = LoadResult()
    enough_commits = threading.Event()
    started = time.monotonic()

    async def watch_commits() -> None:
        if min_commits <= 0:  # a baseline without syncs
            enough_commits.set()
        while not enough_commits.is_set():
            if sum(1 for t in writer.commit_times if t >= started) >= min_commits:
                enough_commits.set()
            elif not writer.thread.is_alive():
                result.sync_errors.append("the writer stopped before enough commits")
                enough_commits.set()
            await asyncio.sleep(0.05)

    watcher = asyncio.create_task(watch_commits())
    if min_commits > 0:
        writer.start()
    try:
        await asyncio.gather(
            *(
                _client(url, key, queries, searches, number, result, enough_commits)
                for number in range(clients)
            )
        )
    finally:
        finished = time.monotonic()
        if writer.thread.is_alive():
            writer.stop()
        enough_commits.set()
        await watcher
    result.seconds = finished - started
    result.commits = len(writer.commit_times)
    result.commits_during_load = sum(1 for t in writer.commit_times if started <= t <= finished)
    result.sync_errors += writer.errors
    return result


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of process *pid* so far (from /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@contextmanager
def process(argv: list[str], ready_prefix: str, log: Path) -> Iterator[tuple[str, int]]:
    """Run ``argv``; yield what follows ``ready_prefix`` on its first stdout line, and
    the process id."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    with (
        log.open("w", encoding="utf-8") as stderr,
        announced_child(
            argv, ready_prefix, startup_seconds=300, stop_seconds=30, env=env, stderr=stderr
        ) as child,
    ):
        if child.announcement is None:
            detail = log.read_text()[-2000:]
            raise RuntimeError(f"{argv[3]} did not start: {child.first_line!r}; {detail}")
        yield child.announcement, child.process.pid


def write_config(directory: Path, base_url: str) -> Path:
    path = directory / "opindex.toml"
    path.write_text(
        f'data_dir = "{directory / "data"}"\n\n[[tenants]]\nname = "{TENANT}"\n'
        f'base_url = "{base_url}"\napi_key = "{ADMIN_KEY}"\n',
        encoding="utf-8",
    )
    path.chmod(0o600)
    return path


def run(
    corpus: dict[str, Any],
    workdir: Path,
    *,
    clients: int,
    searches: int,
    min_commits: int,
    latency_ms: float = 0.0,
) -> LoadResult:
    """The whole run in ``workdir``: sandbox, first sync, server, load with syncs."""
    corpus_path = workdir / "corpus.json"
    write_corpus(corpus, corpus_path)
    sandbox_argv = [sys.executable, "-m", "opindex", "sandbox", "--corpus", str(corpus_path)]
    sandbox_argv += ["--port", "0", "--wiki-list", "--latency-ms", str(latency_ms)]
    with process(sandbox_argv, SANDBOX_READY, workdir / "sandbox.log") as (sandbox_url, _):
        config_path = write_config(workdir, sandbox_url)
        config = load_config(config_path)
        asyncio.run(sync_tenant(config.tenant(TENANT), config.data_dir))
        serve_argv = [sys.executable, "-m", "opindex", "serve", "--config", str(config_path)]
        serve_argv += ["--transport", "http", "--port", "0", "--no-sync"]
        with process(serve_argv, SERVE_READY, workdir / "serve.log") as (url, server):
            ids = [record["id"] for record in corpus["work_packages"]]
            writer = Writer(config_path, sandbox_url, ids)
            before = cpu_seconds(server)
            result = asyncio.run(
                run_load(
                    url,
                    ADMIN_KEY,
                    query_words(corpus),
                    clients=clients,
                    searches=searches,
                    writer=writer,
                    min_commits=min_commits,
                )
            )
            result.server_cpu_s = cpu_seconds(server) - before
            return result


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--searches", type=int, default=200, help="per client")
    parser.add_argument("--work-packages", type=int, default=2000)
    parser.add_argument(
        "--min-commits", type=int, default=3, help="0: a baseline without concurrent syncs"
    )
    parser.add_argument("--latency-ms", type=float, default=0.0, help="added by the sandbox")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    corpus = generate_corpus(CorpusSize.proportional(args.work_packages), seed=args.seed)
    with tempfile.TemporaryDirectory(prefix="opindex-load-") as directory:
        result = run(
            corpus,
            Path(directory),
            clients=args.clients,
            searches=args.searches,
            min_commits=args.min_commits,
            latency_ms=args.latency_ms,
        )
    summary = {
        "clients": args.clients,
        "searches_per_client": args.searches,
        "work_packages": args.work_packages,
        "load_average": round(os.getloadavg()[0], 2),
        "cores": os.cpu_count(),
        **result.summary(),
    }
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        for key, value in summary.items():
            print(f"{key:>22}: {value}")
        for error in [*result.errors, *result.sync_errors][:20]:
            print(f"error: {error}", file=sys.stderr)
    return 1 if result.errors or result.sync_errors else 0


if __name__ == "__main__":
    sys.exit(main())
