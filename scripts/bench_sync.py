"""Benchmark the syncer against the sandbox: full sync and incremental sync per corpus size.

For every size (documents: work packages + wiki pages + meetings of a generated corpus)
it starts ``opindex sandbox`` on the corpus, runs a full sync as the admin account, then
incremental syncs of the unchanged tenant (median of several), then one incremental run
with the periodic deletion sweep due. Prints documents/s and request counts (from the
sandbox's /_sandbox/stats, split by endpoint family) and writes bench-results/sync.json.

    python scripts/bench_sync.py --sizes 10000
    python scripts/bench_sync.py --sizes 10000,100000 --concurrency 8 --markdown
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import select
import shutil
import signal
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
from opindex.sandbox.corpus_gen import ADMIN_KEY, CorpusSize, generate_corpus, write_corpus
from opindex.sync import NullProgress, SyncProgress, TerminalProgress, sync_tenant

# Documents per work package in a proportional corpus: 1 + 1/20 wiki pages + 1/25 meetings.
DOCS_PER_WORK_PACKAGE = 1 + 1 / 20 + 1 / 25
FAMILIES = (
    ("activities", re.compile(r"^/api/v3/work_packages/\d+/activities$")),
    ("work package lists", re.compile(r"^/api/v3/work_packages$")),
    ("agenda items", re.compile(r"^/api/v3/meetings/\d+/agenda_items")),
    ("meeting lists", re.compile(r"^/api/v3/meetings$")),
    ("meetings", re.compile(r"^/api/v3/meetings/\d+$")),
    ("wiki probes", re.compile(r"^/api/v3/wiki_pages/\d+$")),
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
def sandbox(corpus_path: Path, latency_ms: float) -> Iterator[str]:
    """Run ``opindex sandbox`` on a free port; yields its base URL."""
    argv = [sys.executable, "-m", "opindex", "sandbox", "--corpus", str(corpus_path)]
    argv += ["--port", "0", "--latency-ms", str(latency_ms)]
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        ready, _, _ = select.select([process.stdout], [], [], 600)
        line = process.stdout.readline().strip() if ready else ""
        prefix = "sandbox listening on "
        if not line.startswith(prefix):
            raise SystemExit(f"the sandbox did not start: {line!r}")
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


class _Clock:
    def __init__(self) -> None:
        self.offset = timedelta()

    def __call__(self) -> datetime:
        return datetime.now(UTC) + self.offset


def bench_size(documents: int, args: argparse.Namespace, workdir: Path) -> dict[str, Any]:
    """Full sync, unchanged incremental syncs, one incremental sync with the sweep."""
    work_packages = round(documents / DOCS_PER_WORK_PACKAGE)
    corpus = generate_corpus(CorpusSize.proportional(work_packages), seed=args.seed)
    corpus_path = workdir / f"corpus-{documents}.json"
    write_corpus(corpus, corpus_path)
    counts = {kind: len(corpus[kind]) for kind in ("work_packages", "wiki_pages", "meetings")}
    del corpus
    data_dir = workdir / f"data-{documents}"
    progress: SyncProgress = TerminalProgress(sys.stderr) if sys.stderr.isatty() else NullProgress()
    clock = _Clock()
    with sandbox(corpus_path, args.latency_ms) as url, httpx.Client(base_url=url) as control:
        tenant = TenantConfig(name="bench", base_url=url, api_key=Secret(ADMIN_KEY))

        def run(label: str) -> tuple[float, dict[str, Any], Any]:
            control.post("/_sandbox/stats/reset").raise_for_status()
            started = time.perf_counter()
            report = asyncio.run(
                sync_tenant(
                    tenant, data_dir, progress=progress, clock=clock, concurrency=args.concurrency
                )
            )
            elapsed = time.perf_counter() - started
            stats = control.get("/_sandbox/stats").raise_for_status().json()
            print(f"  {label}: {elapsed:.2f} s, {stats['requests']} requests", file=sys.stderr)
            return elapsed, stats, report

        full_seconds, full_stats, full = run("full sync")
        incremental = [run(f"incremental {i + 1}") for i in range(args.incremental_runs)]
        clock.offset += timedelta(seconds=tenant.deletion_sweep_interval_seconds + 1)
        sweep_seconds, sweep_stats, sweep = run("incremental with deletion sweep")

    indexed = sum(full.documents.values())
    return {
        "documents": indexed,
        "corpus": counts,
        "full": {
            "seconds": round(full_seconds, 2),
            "documents_per_second": round(indexed / full_seconds, 1),
            "requests": full_stats["requests"],
            "requests_by_family": families(full_stats["by_path"]),
        },
        "incremental_unchanged": {
            "median_seconds": round(statistics.median(r[0] for r in incremental), 3),
            "requests": [r[1]["requests"] for r in incremental],
            "swept": [r[2].swept for r in incremental],
            "requests_by_family": families(incremental[-1][1]["by_path"]),
        },
        "incremental_with_sweep": {
            "seconds": round(sweep_seconds, 2),
            "requests": sweep_stats["requests"],
            "swept": sweep.swept,
            "requests_by_family": families(sweep_stats["by_path"]),
        },
    }


def print_table(results: list[dict[str, Any]], markdown: bool) -> None:
    header = (
        "| documents | full sync s | docs/s | full requests | incremental requests "
        "(unchanged, median s) | incremental + sweep requests |"
    )
    rows = [header, "|---:|---:|---:|---:|---|---:|"]
    for result in results:
        full, inc, sweep = (
            result["full"],
            result["incremental_unchanged"],
            result["incremental_with_sweep"],
        )
        rows.append(
            f"| {result['documents']} | {full['seconds']} | {full['documents_per_second']} | "
            f"{full['requests']} | {max(inc['requests'])} ({inc['median_seconds']} s) | "
            f"{sweep['requests']} |"
        )
    print("\n".join(rows))
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
            results.append(bench_size(size, args, workdir))
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    payload = {
        "command": "python scripts/bench_sync.py " + " ".join(sys.argv[1:]),
        "concurrency": args.concurrency,
        "latency_ms": args.latency_ms,
        "results": results,
    }
    args.out.write_text(json.dumps(payload, indent=2) + "\n", encoding="utf-8")
    print_table(results, args.markdown)
    return 0


if __name__ == "__main__":
    sys.exit(main())
