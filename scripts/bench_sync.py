"""Benchmark the syncer against the sandbox: full sync and incremental sync per corpus size.

For every size (documents: work packages + wiki pages + meetings of a generated corpus)
it starts ``opindex sandbox`` on the corpus, runs a full sync as the admin account, then
incremental syncs of the unchanged tenant (median of several; requests beyond the fixed
identity and project requests against the goal of <= 12 at 10k and <= 110 at 100k), then
unchanged runs spaced like the daemon's (``--interval-runs`` runs, each
``--interval-seconds`` later on an injected clock: the share of wiki pages due for their
re-read, and the whole work-package listing once the sweep interval is over), then one
incremental run after 20 changes and 5 deletions. ``--wiki-list`` serves the wiki list
endpoint (one request lists every page) instead of the released servers' single pages.

With ``--webhook-changes N`` it then starts ``opindex serve --transport http --no-sync``
with a webhook for the tenant, lets the sandbox send signed webhooks, and measures for N
changes the time from the change to the changed work package being in the index.

Prints documents/s and request counts (from the sandbox's /_sandbox/stats, split by
endpoint family) and writes bench-results/sync.json.

    python scripts/bench_sync.py --sizes 10000 --webhook-changes 50
    python scripts/bench_sync.py --sizes 10000,100000 --concurrency 8 --markdown
    python scripts/bench_sync.py --sizes 10000 --wiki-list
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import select
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx

from opindex.config import Secret, TenantConfig
from opindex.index import TenantIndex
from opindex.sandbox.corpus_gen import ADMIN_KEY, CorpusSize, generate_corpus, write_corpus
from opindex.sync import (
    NullProgress,
    SyncProgress,
    TerminalProgress,
    index_directory,
    sync_tenant,
)

WEBHOOK_SECRET = "bench-webhook-secret"
WEBHOOK_PATH = "/hooks/bench"
# Documents per work package in a proportional corpus: 1 + 1/20 wiki pages + 1/25 meetings.
DOCS_PER_WORK_PACKAGE = 1 + 1 / 20 + 1 / 25
FAMILIES = (
    ("activities", re.compile(r"^/api/v3/work_packages/\d+/activities$")),
    ("work package lists", re.compile(r"^/api/v3/work_packages$")),
    ("agenda items", re.compile(r"^/api/v3/meetings/\d+/agenda_items")),
    ("meeting lists", re.compile(r"^/api/v3/meetings$")),
    ("meetings", re.compile(r"^/api/v3/meetings/\d+$")),
    ("wiki probes", re.compile(r"^/api/v3/wiki_pages/\d+$")),
    ("wiki lists", re.compile(r"^/api/v3/(projects/\d+/)?wiki_pages$")),
    ("news, documents, versions", re.compile(r"^/api/v3/(news|documents|versions)$")),
    ("identity and projects", re.compile(r"^/api/v3/(users/me|projects)$")),
)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--sizes",
        default="10000,100000",
        help="comma-separated corpus sizes in documents (default 10000,100000)",
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--concurrency", type=int, default=8, help="requests in flight")
    parser.add_argument("--latency-ms", type=float, default=0.0, help="sandbox latency")
    parser.add_argument(
        "--incremental-runs", type=int, default=5, help="unchanged incremental runs per size"
    )
    parser.add_argument(
        "--interval-runs",
        type=int,
        default=4,
        help="unchanged runs spaced --interval-seconds apart on an injected clock",
    )
    parser.add_argument(
        "--interval-seconds", type=int, default=900, help="the daemon's sync interval"
    )
    parser.add_argument(
        "--wiki-list", action="store_true", help="the sandbox serves the wiki list endpoint"
    )
    parser.add_argument(
        "--webhook-changes",
        type=int,
        default=0,
        help="changes whose webhook-to-searchable latency is measured (smallest size only)",
    )
    parser.add_argument("--out", type=Path, default=Path("bench-results/sync.json"))
    parser.add_argument(
        "--markdown", action="store_true", help="also print a Markdown table for docs/BENCHMARKS.md"
    )
    args = parser.parse_args(argv)
    try:
        args.sizes = [int(part) for part in args.sizes.split(",") if part.strip()]
    except ValueError:
        parser.error("--sizes takes comma-separated integers, e.g. 10000,100000")
    if not args.sizes or min(args.sizes) < 100:
        parser.error("--sizes: every size must be at least 100 documents")
    return args


@contextmanager
def sandbox(
    corpus_path: Path, latency_ms: float, webhook_url: str | None = None, *, wiki_list: bool
) -> Iterator[str]:
    """Run ``opindex sandbox`` on a free port; yields its base URL."""
    argv = [sys.executable, "-m", "opindex", "sandbox", "--corpus", str(corpus_path)]
    argv += ["--port", "0", "--latency-ms", str(latency_ms)]
    if wiki_list:
        argv.append("--wiki-list")
    if webhook_url is not None:
        argv += ["--webhook-url", webhook_url, "--webhook-secret", WEBHOOK_SECRET]
    with announced(argv, "sandbox listening on ") as url:
        yield url


@contextmanager
def announced(argv: list[str], prefix: str) -> Iterator[str]:
    """Run a server process until the block ends; yields what follows ``prefix`` on the
    first line it prints."""
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        ready, _, _ = select.select([process.stdout], [], [], 600)
        line = process.stdout.readline().strip() if ready else ""
        if not line.startswith(prefix):
            raise SystemExit(f"{argv[3]} did not start: {line!r}")
        yield line.removeprefix(prefix)
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def families(by_path: dict[str, int]) -> dict[str, int]:
    """Request counts grouped by endpoint family."""
    grouped: Counter[str] = Counter()
    for path, count in by_path.items():
        name = next((name for name, pattern in FAMILIES if pattern.match(path)), "other")
        grouped[name] += count
    return dict(grouped)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def bench_size(
    documents: int, args: argparse.Namespace, workdir: Path, *, webhooks: bool
) -> dict[str, Any]:
    """Full sync, unchanged incremental syncs, a changed incremental sync, webhooks."""
    work_packages = round(documents / DOCS_PER_WORK_PACKAGE)
    corpus = generate_corpus(CorpusSize.proportional(work_packages), seed=args.seed)
    corpus_path = workdir / f"corpus-{documents}.json"
    write_corpus(corpus, corpus_path)
    counts = {kind: len(corpus[kind]) for kind in ("work_packages", "wiki_pages", "meetings")}
    wp_ids = sorted(wp["id"] for wp in corpus["work_packages"])
    del corpus
    data_dir = workdir / f"data-{documents}"
    progress: SyncProgress = TerminalProgress(sys.stderr) if sys.stderr.isatty() else NullProgress()
    port = free_port()
    hook_url = f"http://127.0.0.1:{port}{WEBHOOK_PATH}" if webhooks else None
    result: dict[str, Any] = {"corpus": counts}
    with (
        sandbox(corpus_path, args.latency_ms, hook_url, wiki_list=args.wiki_list) as url,
        httpx.Client(base_url=url, timeout=60) as control,
    ):
        tenant = TenantConfig(name="bench", base_url=url, api_key=Secret(ADMIN_KEY))

        later = timedelta()

        def clock() -> datetime:
            return datetime.now(UTC) + later

        def run(label: str) -> tuple[float, dict[str, Any], Any]:
            control.post("/_sandbox/stats/reset").raise_for_status()
            started = time.perf_counter()
            report = asyncio.run(
                sync_tenant(
                    tenant,
                    data_dir,
                    progress=progress,
                    concurrency=args.concurrency,
                    clock=clock,
                )
            )
            elapsed = time.perf_counter() - started
            stats = control.get("/_sandbox/stats").raise_for_status().json()
            print(f"  {label}: {elapsed:.2f} s, {stats['requests']} requests", file=sys.stderr)
            return elapsed, stats, report

        full_seconds, full_stats, full = run("full sync")
        incremental = [run(f"incremental {i + 1}") for i in range(args.incremental_runs)]
        spaced = []
        for _ in range(args.interval_runs):
            later += timedelta(seconds=args.interval_seconds)
            spaced.append(run(f"unchanged, {later.total_seconds() / 60:.0f} min later"))
        for wp_id in wp_ids[:: max(1, len(wp_ids) // 20)][:20]:
            record = {"id": wp_id, "subject": f"Changed for the benchmark {wp_id}"}
            mutate(control, "upsert", record)
        for wp_id in wp_ids[-5:]:
            mutate(control, "delete", {"id": wp_id})
        changed_seconds, changed_stats, changed = run("incremental after 20 changes, 5 deletions")
        if webhooks:
            result["webhooks"] = bench_webhooks(args, workdir, url, port, data_dir, wp_ids[:-5])

    indexed = sum(full.documents.values())
    unchanged_requests = [r[1]["requests"] for r in incremental]
    beyond_fixed = [
        requests - fixed_requests(r[1]["by_path"])
        for r, requests in zip(incremental, unchanged_requests, strict=True)
    ]
    result.update(
        {
            "documents": indexed,
            "full": {
                "seconds": round(full_seconds, 2),
                "documents_per_second": round(indexed / full_seconds, 1),
                "requests": full_stats["requests"],
                "requests_by_family": families(full_stats["by_path"]),
            },
            "incremental_unchanged": {
                "median_seconds": round(statistics.median(r[0] for r in incremental), 3),
                "requests": unchanged_requests,
                "requests_beyond_identity_and_projects": beyond_fixed,
                "requests_by_family": families(incremental[-1][1]["by_path"]),
            },
            "incremental_spaced": [
                {
                    "minutes_later": round((i + 1) * args.interval_seconds / 60, 1),
                    "seconds": round(r[0], 3),
                    "requests": r[1]["requests"],
                    "requests_beyond_identity_and_projects": r[1]["requests"]
                    - fixed_requests(r[1]["by_path"]),
                    "requests_by_family": families(r[1]["by_path"]),
                }
                for i, r in enumerate(spaced)
            ],
            "incremental_changed": {
                "seconds": round(changed_seconds, 2),
                "requests": changed_stats["requests"],
                "counts": {
                    kind: {"upserted": c.upserted, "deleted": c.deleted}
                    for kind, c in changed.counts.items()
                },
                "requests_by_family": families(changed_stats["by_path"]),
            },
        }
    )
    return result


def fixed_requests(by_path: dict[str, int]) -> int:
    """The identity check and the project list: paid by every run whatever the size."""
    return by_path.get("/api/v3/users/me", 0) + by_path.get("/api/v3/projects", 0)


def mutate(control: httpx.Client, op: str, record: dict[str, Any]) -> None:
    body = {"op": op, "kind": "work_packages", "record": record}
    control.post("/_sandbox/mutate", json=body).raise_for_status()


def bench_webhooks(
    args: argparse.Namespace,
    workdir: Path,
    url: str,
    port: int,
    data_dir: Path,
    wp_ids: list[int],
) -> dict[str, Any]:
    """Change work packages one after another; time each until the index holds it."""
    config = workdir / "webhooks.toml"
    config.write_text(
        f'data_dir = "{data_dir}"\n\n[[tenants]]\nname = "bench"\n'
        f'base_url = "{url}"\napi_key = "{ADMIN_KEY}"\n'
        f'webhook_path = "{WEBHOOK_PATH}"\nwebhook_secret = "{WEBHOOK_SECRET}"\n',
        encoding="utf-8",
    )
    config.chmod(0o600)
    argv = [sys.executable, "-m", "opindex", "serve", "--config", str(config)]
    argv += ["--transport", "http", "--port", str(port), "--no-sync"]
    latencies: list[float] = []
    with (
        announced(argv, "opindex MCP server listening on "),
        httpx.Client(base_url=url, timeout=60) as control,
        TenantIndex(index_directory(data_dir, "bench")) as index,
    ):
        step = max(1, len(wp_ids) // args.webhook_changes)
        for n, wp_id in enumerate(wp_ids[::step][: args.webhook_changes]):
            subject = f"Webhook change {n} of work package {wp_id}"
            started = time.perf_counter()
            mutate(control, "upsert", {"id": wp_id, "subject": subject})
            while True:
                record = index.get("work_package", wp_id)
                if record is not None and record.title == subject:
                    break
                if time.perf_counter() - started > 60:
                    raise SystemExit(f"work package {wp_id} was not re-indexed within 60 s")
                time.sleep(0.01)
            latencies.append(time.perf_counter() - started)
    ordered = sorted(latencies)
    print(
        f"  webhooks: {len(ordered)} changes, p50 {statistics.median(ordered):.2f} s, "
        f"max {ordered[-1]:.2f} s",
        file=sys.stderr,
    )
    return {
        "changes": len(ordered),
        "seconds_min": round(ordered[0], 3),
        "seconds_p50": round(statistics.median(ordered), 3),
        "seconds_p90": round(ordered[int(0.9 * (len(ordered) - 1))], 3),
        "seconds_max": round(ordered[-1], 3),
        "within_5_s": sum(1 for value in ordered if value <= 5.0),
        "seconds": [round(value, 3) for value in latencies],
    }


def print_table(results: list[dict[str, Any]], markdown: bool) -> None:
    header = (
        "| documents | full sync s | docs/s | full requests | unchanged incremental requests "
        "(beyond identity+projects; median s) | after 20 changes + 5 deletions: requests (s) |"
    )
    rows = [header, "|---:|---:|---:|---:|---|---|"]
    for result in results:
        full, inc, changed = (
            result["full"],
            result["incremental_unchanged"],
            result["incremental_changed"],
        )
        rows.append(
            f"| {result['documents']} | {full['seconds']} | {full['documents_per_second']} | "
            f"{full['requests']} | {max(inc['requests'])} "
            f"({max(inc['requests_beyond_identity_and_projects'])}; {inc['median_seconds']} s) | "
            f"{changed['requests']} ({changed['seconds']} s) |"
        )
    print("\n".join(rows))
    for result in results:
        for run in result["incremental_spaced"]:
            by_family = ", ".join(f"{k} {v}" for k, v in sorted(run["requests_by_family"].items()))
            print(
                f"- {result['documents']} documents, unchanged {run['minutes_later']} min later: "
                f"{run['requests_beyond_identity_and_projects']} beyond identity and projects "
                f"({by_family}; {run['seconds']} s)"
            )
    for result in results:
        hooks = result.get("webhooks")
        if hooks:
            print(
                f"\nwebhook to searchable, {hooks['changes']} changes: "
                f"min {hooks['seconds_min']} s, p50 {hooks['seconds_p50']} s, "
                f"p90 {hooks['seconds_p90']} s, max {hooks['seconds_max']} s; "
                f"{hooks['within_5_s']} within 5 s"
            )
    if markdown:
        print()
        for result in results:
            print(f"- {result['documents']} documents, full sync requests by endpoint: ", end="")
            by_family = result["full"]["requests_by_family"]
            print(", ".join(f"{name} {count}" for name, count in sorted(by_family.items())))


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    workdir = Path(tempfile.mkdtemp(prefix="opindex-bench-sync-"))
    results = []
    try:
        for size in args.sizes:
            print(f"size {size}:", file=sys.stderr)
            webhooks = args.webhook_changes > 0 and size == min(args.sizes)
            results.append(bench_size(size, args, workdir, webhooks=webhooks))
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    payload = {
        "command": "python scripts/bench_sync.py " + " ".join(sys.argv[1:]),
        "concurrency": args.concurrency,
        "latency_ms": args.latency_ms,
        "wiki_list": args.wiki_list,
        "results": results,
    }
    args.out.write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
    print_table(results, args.markdown)
    return 0


if __name__ == "__main__":
    sys.exit(main())
