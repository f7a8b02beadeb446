"""Cost per search on both paths: latency p50/p95 and API requests, per corpus size.

python scripts/eval_cost.py                       # 1k, 3k, 10k work packages
python scripts/eval_cost.py --sizes 10000 100000  # any sizes (the 100k figure: --full in bench_all)

For each size: the same mixed known-item queries (typos, multi-word, reordered, natural
language, deep-only, no-hit; taken round-robin from the size's query file) answered by
the index path and by the live path in the same run, query by query, through the
service façade in process. The live path reads a sandbox over HTTP that adds
``--latency-ms`` to every request (20 ms by default, as BENCHMARKS.md asks); API requests
per search are the sandbox's request counter delta. Writes bench-results/<out>.json.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from evallib.corpora import ensure_corpus, ensure_queries, mixed_sample, size_label
from evallib.corpus_view import corpus_items, load_corpus
from evallib.cost_rows import Answered, cost_row
from evallib.profiling import profile_index_path
from evallib.querygen import KnownItemQuery
from evallib.results_io import RESULTS, context, write_result
from evallib.sandbox_proc import sandbox_process
from evallib.search_paths import Answer, ServicePaths, bench_config
from evallib.tenant_data import TenantData, ensure_tenant
from opindex.search.document import KINDS

WARM_UP = 5


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 3000, 10_000])
    parser.add_argument("--seed", type=int, default=7, help="corpus seed")
    parser.add_argument("--query-seed", type=int, default=1)
    parser.add_argument("--per-category", type=int, default=40)
    parser.add_argument("--queries", type=int, default=200, help="mixed queries per size")
    parser.add_argument(
        "--live-queries", type=int, default=None, help="live path on the first N only"
    )
    parser.add_argument("--latency-ms", type=float, default=20.0)
    parser.add_argument(
        "--profile", type=int, default=10, help="profile the N slowest index queries (largest size)"
    )
    parser.add_argument("--out", default="cost")
    return parser.parse_args(argv)


async def measure(
    queries: list[KnownItemQuery], tenant: TenantData, corpus_path: Path, args: argparse.Namespace
) -> tuple[Answered, Answered, float]:
    """Each query on the index path, then (the first --live-queries) on the live path."""
    live_count = len(queries) if args.live_queries is None else args.live_queries
    index_answers: list[tuple[KnownItemQuery, Answer]] = []
    live_answers: list[tuple[KnownItemQuery, Answer]] = []
    with sandbox_process(corpus_path, latency_ms=args.latency_ms) as sandbox:
        config = bench_config(tenant.data_dir, tenant.tenant, sandbox.base_url)
        paths = ServicePaths(config, tenant.tenant, sandbox.requests)
        try:
            for query in queries[:WARM_UP]:  # open the index, detect capabilities, warm caches
                await paths.search(query, "index")
                await paths.search(query, "live")
            started = time.perf_counter()
            for number, query in enumerate(queries):
                index_answers.append((query, await paths.search(query, "index")))
                if number < live_count:
                    live_answers.append((query, await paths.search(query, "live")))
            seconds = time.perf_counter() - started
        finally:
            await paths.aclose()
    return index_answers, live_answers, seconds


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    sizes: list[dict[str, Any]] = []
    last_sample: list[KnownItemQuery] = []
    last_tenant: TenantData | None = None
    for size in args.sizes:
        corpus = ensure_corpus(size, args.seed, RESULTS / "corpora")
        items = corpus_items(load_corpus(corpus))
        _, queries = ensure_queries(
            corpus, items, args.query_seed, args.per_category, RESULTS / "queries"
        )
        sample = mixed_sample(queries, args.queries)
        tenant = ensure_tenant(corpus, RESULTS / "tenants")
        print(f"{size_label(size)}: {len(sample)} queries ...", file=sys.stderr)
        index_answers, live_answers, seconds = asyncio.run(measure(sample, tenant, corpus, args))
        documents = {kind: sum(1 for i in items if i.kind == kind) for kind in KINDS}
        figures = cost_row(
            size, documents, corpus.name, index_answers, live_answers, source="eval_cost"
        )
        figures["run_seconds"] = seconds
        sizes.append(figures)
        last_sample, last_tenant = sample, tenant
        index, live = figures["index"], figures["live"]
        print(
            f"{size_label(size):>6}  index p50 {index['p50_ms']:7.1f} ms p95 {index['p95_ms']:7.1f}"
            f" ms requests {index['requests_total']}  |  live p50 {live['p50_ms']:7.1f} ms"
            f" p95 {live['p95_ms']:7.1f} ms requests/search {live['requests_mean']}"
            f"  |  live/index {figures['live_over_index_p50']:.0f}x"
        )
    profile = None
    if args.profile and sizes and last_tenant is not None:
        largest = sizes[-1]
        slow_ids = [entry["qid"] for entry in largest["slowest_index_queries"]]
        slow = [q for q in last_sample if q.qid in slow_ids][: args.profile]
        warm = [q for q in last_sample if q.qid not in slow_ids][:10]
        profile = profile_index_path(last_tenant, slow, warm=warm)
        profile["size"] = largest["label"]
    result = {
        "benchmark": "cost",
        **context(),
        "latency_ms": args.latency_ms,
        "queries_per_size": args.queries,
        "sizes": sizes,
        "profile": profile,
    }
    print(f"wrote {write_result(args.out, result)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
