"""Search latency of the index path in process, its growth with corpus size, and live vs index.

python scripts/bench_search.py                           # Zipf corpora: 1k, 10k, 100k documents
python scripts/bench_search.py --sizes 1000 10000 100000 1000000    # the growth curve to 1M
python scripts/bench_search.py --vocabulary templates --build sync --live-sizes 1000 10000

For each size: a generated corpus of about that many documents (``--vocabulary zipf``,
the default: running text over a Zipf vocabulary of millions of types; ``templates``: the
plain generator's few hundred words), its known-item queries (typos, multi-word,
reordered, natural-language questions, deep-only, diacritics, relaxation, no-hit; a mixed
sample of --queries), and a tenant built from it once and cached under bench-results/
(``--build bulk``, the default: the corpus records indexed directly, see
``evallib/bulk_tenant.py``; ``sync``: the real syncer against the sandbox in process);
its build time and disk size are reported. The index path is timed through the service
façade (``source="index"``, in process, after a warm-up); p50/p95/p99 wall and CPU time
per search. For the sizes in --live-sizes the same queries are then answered live from a
sandbox serving the corpus with --latency-ms per request, and the ratio live/index of the
medians is printed. The slowest index queries of the largest size are profiled. With
two sizes or more, the growth curve is plotted (--plot). Writes bench-results/search.json;
prints the tables shown in docs/BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from evallib.bulk_tenant import COMMIT_RECORDS
from evallib.corpora import ensure_corpus, ensure_queries, generation_seconds, mixed_sample
from evallib.corpus_stream import sample_corpus
from evallib.corpus_view import corpus_items, load_corpus
from evallib.index_size import index_size
from evallib.plots import plot_growth
from evallib.profiling import profile_index_path
from evallib.querygen import KnownItemQuery
from evallib.results_io import RESULTS, context, write_result
from evallib.sandbox_proc import sandbox_process
from evallib.search_paths import ServicePaths, bench_config
from evallib.tenant_builds import BUILD_METHODS, build_tenant
from evallib.tenant_data import TenantData
from evallib.yardstick import describe, yardstick
from evallib.zipf_corpus import VOCABULARIES

DOCUMENTS_PER_WORK_PACKAGE = 1.09  # CorpusSize.proportional adds wiki pages and meetings
WARM_UP = 10
TARGETS_P95_MS = {100_000: 30.0, 1_000_000: 60.0}
"""p95 goals (ms) of the index path in process, by corpus size in documents."""
P99_OVER_P95 = 2.0
TARGET_RATIO = 50.0
GROWTH_PLOT = Path(__file__).resolve().parents[1] / "docs" / "bench-growth.png"
QUERY_SAMPLE = 120_000
"""Query generation holds every record's tokens (4.6 GB at 100k documents): above this
size the queries come from the first records of each kind, a sample of this many."""


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10_000, 100_000])
    parser.add_argument("--live-sizes", type=int, nargs="*", default=[])
    parser.add_argument("--vocabulary", choices=VOCABULARIES, default="zipf")
    parser.add_argument("--build", choices=BUILD_METHODS, default="bulk")
    parser.add_argument(
        "--plot", type=Path, default=GROWTH_PLOT, help=f"growth curve (default {GROWTH_PLOT})"
    )
    parser.add_argument("--queries", type=int, default=200, help="mixed queries per size")
    parser.add_argument("--per-category", type=int, default=40)
    parser.add_argument(
        "--query-sample",
        type=int,
        default=QUERY_SAMPLE,
        metavar="DOCUMENTS",
        help="larger corpora draw their queries from a sample of about this many documents "
        f"(default {QUERY_SAMPLE:,}; 0: never sample)",
    )
    parser.add_argument("--latency-ms", type=float, default=20.0)
    parser.add_argument("--seed", type=int, default=7, help="corpus seed")
    parser.add_argument("--query-seed", type=int, default=1)
    parser.add_argument("--profile", type=int, default=10, help="slowest queries to profile")
    parser.add_argument(
        "--commit-records",
        type=int,
        default=COMMIT_RECORDS,
        metavar="N",
        help=f"a bulk build commits every N records (default {COMMIT_RECORDS:,}); each commit "
        "is an analysis segment, so a smaller N gives a tenant of more segments",
    )
    parser.add_argument(
        "--reuse-tenants",
        action="store_true",
        help="reuse a cached tenant of the same corpus built by other code (when the code "
        "that decides what is indexed changed, e.g. search code, but the index layout did not)",
    )
    parser.add_argument("--out", default="search", help="result name (bench-results/<out>.json)")
    return parser.parse_args(argv)


def _percentile(values: Sequence[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def _summary(seconds: Sequence[float]) -> dict[str, float]:
    return {
        "p50_ms": _percentile(seconds, 0.5) * 1000,
        "p95_ms": _percentile(seconds, 0.95) * 1000,
        "p99_ms": _percentile(seconds, 0.99) * 1000,
        "max_ms": max(seconds) * 1000,
        "mean_ms": statistics.fmean(seconds) * 1000,
    }


async def _index_timings(
    tenant: TenantData, queries: Sequence[KnownItemQuery]
) -> tuple[list[float], list[float]]:
    """Wall and CPU seconds per index-path search (no sandbox: the index path calls none)."""
    paths = ServicePaths(
        bench_config(tenant.data_dir, tenant.tenant, "http://unused.invalid"), tenant.tenant
    )
    try:
        for query in queries[:WARM_UP]:
            await paths.search(query, "index")
        wall, cpu = [], []
        for query in queries:
            started = time.process_time()
            answer = await paths.search(query, "index")
            cpu.append(time.process_time() - started)
            if answer.error:
                raise SystemExit(f"index path failed on {query.query!r}: {answer.error}")
            wall.append(answer.seconds)
        return wall, cpu
    finally:
        await paths.aclose()


async def _live_timings(
    corpus: Path, tenant: TenantData, queries: Sequence[KnownItemQuery], latency_ms: float
) -> tuple[list[float], list[float], list[int]]:
    """Wall seconds per search on both paths, query by query, and live API requests."""
    with sandbox_process(corpus, latency_ms=latency_ms) as sandbox:
        config = bench_config(tenant.data_dir, tenant.tenant, sandbox.base_url)
        paths = ServicePaths(config, tenant.tenant, sandbox.requests)
        try:
            for query in queries[:3]:
                await paths.search(query, "live")
            live, index, requests = [], [], []
            for query in queries:
                answer = await paths.search(query, "live")
                live.append(answer.seconds)
                requests.append(answer.requests or 0)
                index.append((await paths.search(query, "index")).seconds)
            return live, index, requests
        finally:
            await paths.aclose()


def distinct_tokens(tenant: TenantData) -> int | None:
    """Distinct tokens of the tenant's analysis vocabulary (its published generation)."""
    manifests = sorted((tenant.data_dir / tenant.tenant).rglob("analysis/manifest.json"))
    if len(manifests) != 1:
        return None
    manifest = json.loads(manifests[0].read_text(encoding="utf-8"))
    return sum(int(entry.get("count", 0)) for entry in manifest.get("vocabulary", []))


def _label(documents: int) -> str:
    if documents >= 1_000_000:
        return f"{documents / 1_000_000:g}M"
    return f"{documents // 1000}k" if documents >= 1000 else str(documents)


def run_size(documents: int, args: argparse.Namespace) -> dict[str, Any]:
    """Every figure for one corpus size."""
    work_packages = round(documents / DOCUMENTS_PER_WORK_PACKAGE)
    root = RESULTS / "corpora"
    corpus = ensure_corpus(work_packages, args.seed, root, args.vocabulary)
    query_root = root
    sampled_queries = bool(args.query_sample and documents > args.query_sample)
    if sampled_queries:
        items = corpus_items(sample_corpus(corpus, args.query_sample))
        query_root = root / f"sample-{args.query_sample}"
    else:
        items = corpus_items(load_corpus(corpus))
    sampled = len(items)
    _, generated = ensure_queries(corpus, items, args.query_seed, args.per_category, query_root)
    del items  # the largest corpora need the memory for the build
    queries = mixed_sample(generated, args.queries)
    build = build_tenant(
        corpus,
        RESULTS / "tenants",
        args.build,
        any_code=args.reuse_tenants,
        commit_every=args.commit_records,
    )
    tenant = build.tenant
    load_before = os.getloadavg()[0]
    wall, cpu = asyncio.run(_index_timings(tenant, queries))
    figures: dict[str, Any] = {
        "documents": sum(tenant.sync["documents"].values()),
        "corpus": corpus.name,
        "corpus_generation_s": generation_seconds(corpus),
        "tenant_dir": str(tenant.data_dir),
        "distinct_tokens": distinct_tokens(tenant),
        "load_average": [load_before, os.getloadavg()[0]],
        "queries_from_documents": sampled,
        "queries_sampled": sampled_queries,
        "build": build.to_json(),
        "index": index_size(tenant),
        "queries": len(queries),
        "index_wall": _summary(wall),
        "index_cpu": _summary(cpu),
        "slowest": sorted(zip(wall, queries, strict=True), key=lambda p: -p[0])[: args.profile],
    }
    if documents in args.live_sizes:
        live, index, requests = asyncio.run(_live_timings(corpus, tenant, queries, args.latency_ms))
        figures["live_wall"] = _summary(live)
        figures["index_wall_side_by_side"] = _summary(index)
        figures["live_requests_mean"] = statistics.fmean(requests)
        figures["ratio_p50"] = _percentile(live, 0.5) / _percentile(index, 0.5)
    figures["tenant"] = tenant
    figures["fastest"] = [q for _, q in sorted(zip(wall, queries, strict=True), key=lambda p: p[0])]
    return figures


def _mb(size: float) -> str:
    return f"{size / 1e6:,.0f} MB" if size >= 1e7 else f"{size / 1e6:,.1f} MB"


def _growth_table(results: dict[int, dict[str, Any]], vocabulary: str) -> list[str]:
    """Markdown: per size, the build and the index path's percentiles against the goals."""
    lines = [
        f"| size | documents | corpus ({vocabulary}) | distinct tokens | build | build time "
        "| tenant on disk | index / text | queries | p50 | p95 | p99 | max | p95 goal "
        "| p99 <= 2 x p95 | load |",
        "|:--|--:|--:|--:|:--|--:|--:|--:|--:|--:|--:|--:|--:|:--|:--|--:|",
    ]
    for size, r in results.items():
        wall, build = r["index_wall"], r["build"]
        goal = TARGETS_P95_MS.get(size)
        verdict = "-"
        if goal is not None:
            verdict = f"{goal:g} ms: **{'met' if wall['p95_ms'] <= goal else 'missed'}**"
        tail = "met" if wall["p99_ms"] <= P99_OVER_P95 * wall["p95_ms"] else "**missed**"
        tokens = f"{r['distinct_tokens']:,}" if r.get("distinct_tokens") is not None else "-"
        load = "–".join(f"{value:.1f}" for value in r["load_average"])
        lines.append(
            f"| {_label(size)} | {r['documents']:,} | {_mb(build['corpus_bytes'])} | {tokens} "
            f"| {build['method']} | {build['build_s']:,.0f} s | {_mb(build['disk_bytes'])} "
            f"| {r['index']['bytes_per_text_byte']:.2f} "
            f"| {r['queries']} | {wall['p50_ms']:.1f} ms | {wall['p95_ms']:.1f} ms "
            f"| {wall['p99_ms']:.1f} ms | {wall['max_ms']:.0f} ms | {verdict} | {tail} | {load} |"
        )
    return lines


def _table(results: dict[int, dict[str, Any]], latency_ms: float) -> list[str]:
    lines = [
        "size  docs     queries  index p50/p95/p99 ms (wall)  index p50/p95/p99 ms (cpu)  "
        f"live p50/p95 ms (+{latency_ms:g} ms/request)  live/index  API calls per live search",
    ]
    for size, r in results.items():
        wall, cpu = r["index_wall"], r["index_cpu"]
        live = r.get("live_wall")
        live_text = f"{live['p50_ms']:8.0f} / {live['p95_ms']:6.0f}" if live else "       -"
        ratio = f"{r['ratio_p50']:8.1f}x" if "ratio_p50" in r else "        -"
        calls = f"{r['live_requests_mean']:6.1f}" if "live_requests_mean" in r else "     -"
        lines.append(
            f"{_label(size):>4}  {r['documents']:>7}  {r['queries']:>7}  "
            f"{wall['p50_ms']:10.1f} / {wall['p95_ms']:6.1f} / {wall['p99_ms']:6.1f}  "
            f"{cpu['p50_ms']:9.1f} / {cpu['p95_ms']:6.1f} / {cpu['p99_ms']:6.1f}  {live_text}"
            f"                     {ratio}  {calls}"
        )
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    results: dict[int, dict[str, Any]] = {}
    speed = yardstick()
    for documents in args.sizes:
        print(f"== {_label(documents)} documents", file=sys.stderr, flush=True)
        results[documents] = run_size(documents, args)
    load = os.getloadavg()[0]
    print(
        f"Index path in process, {args.queries} mixed known-item queries per size "
        f"(relaxed ones included); load average {load:.2f} on {os.cpu_count()} cores; "
        f"yardstick (evallib.yardstick) {describe(speed)} before, "
        f"{describe(yardstick())} after.\n"
    )
    print("\n".join(_growth_table(results, args.vocabulary)))
    for size, r in results.items():
        if r["queries_sampled"]:  # else every record but the projects (not queried)
            print(
                f"\nThe {_label(size)} queries were generated from the first "
                f"{r['queries_from_documents']:,} records of the corpus (in the kinds' "
                "proportions; --query-sample): the same kinds of query, each naming a record "
                "of the full tenant."
            )
    print("\nCorpora and cached tenants (corpus generation time when it was generated):\n")
    for size, r in results.items():
        generated = r["corpus_generation_s"]
        took = (
            f"generated in {generated:,.0f} s"
            if generated is not None
            else "generation time unknown"
        )
        print(f"- {_label(size)}: {r['corpus']} ({took}); tenant {r['tenant_dir']}")
    if len(results) >= 2 and args.plot:
        plot_growth(
            [results[size] for size in sorted(results)],
            TARGETS_P95_MS,
            args.plot,
            title=f"Index-path latency against corpus size ({args.vocabulary} corpora, in process)",
        )
        print(f"\n![index-path latency against corpus size]({args.plot.name})")
    print("\nWall and CPU time per search, and the live path where measured:\n")
    print("```")
    print("\n".join(_table(results, args.latency_ms)))
    print("```")
    largest = results[max(results)]
    ratios = [r["ratio_p50"] for r in results.values() if "ratio_p50" in r]
    if ratios:
        print(
            f"target index >= {TARGET_RATIO:g}x faster than live: "
            f"{'met' if min(ratios) >= TARGET_RATIO else 'missed'} "
            f"(lowest ratio {min(ratios):.1f}x)"
        )
    slowest = [query for _, query in largest["slowest"]]
    warm = largest["fastest"][:WARM_UP]  # not the profiled ones: their words stay cached
    profile = profile_index_path(largest["tenant"], slowest, warm=warm)
    if slowest:
        print(
            f"\nProfile of the {len(slowest)} slowest index queries at the largest size "
            f"({profile['total_s'] * 1000:.0f} ms in total), by own time:\n\n```"
        )
        for row in profile["by_own_time"]:
            print(f"  {row['own_s'] * 1000:8.1f} ms  {row['calls']:>8}  {row['function']}")
        print("```")
    for r in results.values():
        r["slowest"] = [{"ms": s * 1000, "query": q.query, "kind": q.kind} for s, q in r["slowest"]]
        r.pop("tenant")
        r.pop("fastest")
    write_result(
        args.out,
        {
            "context": context(),
            "yardstick_before": speed,
            "sizes": results,
            "profile": profile,
            "latency_ms": args.latency_ms,
            "vocabulary": args.vocabulary,
            "targets_p95_ms": TARGETS_P95_MS,
        },
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
