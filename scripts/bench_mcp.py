"""Index-path search latency through an MCP stdio client, beside the same searches in process.

python scripts/bench_mcp.py --work-packages 10000 --queries 200
python scripts/bench_mcp.py --documents 100000 --vocabulary zipf --build bulk --queries 200

Launches ``python -m opindex serve`` (stdio, no sync daemon) for a benchmark tenant,
connects ``mcp.Client`` to it, and answers the same mixed known-item queries through the
search tools and through the service façade in process, query by query in one run. The
tenant's base URL is a sandbox whose request counter shows that no search reaches the
API. Writes bench-results/<out>.json.

The tenant is synced from a template corpus by default (``--build sync``); ``--build
bulk`` indexes the corpus directly (``evallib/bulk_tenant.py``), and with ``--vocabulary
zipf --documents N`` the corpus, queries and tenant are the ones ``bench_search.py``
caches for that size, so a 100k run reuses its tenant instead of building another.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from evallib.corpora import ensure_corpus, ensure_queries, mixed_sample, size_label
from evallib.corpus_stream import sample_corpus
from evallib.corpus_view import corpus_items, load_corpus
from evallib.mcp_session import TenantEntry, call_search, stdio_client, write_config
from evallib.metrics import latency_summary
from evallib.querygen import KnownItemQuery
from evallib.results_io import RESULTS, context, write_result
from evallib.sandbox_proc import sandbox_process
from evallib.search_paths import Answer, ServicePaths, bench_config
from evallib.tenant_builds import BUILD_METHODS, build_tenant
from evallib.tenant_data import TenantData
from evallib.zipf_corpus import VOCABULARIES
from opindex.sandbox.corpus_gen import ADMIN_KEY

WARM_UP = 5
DOCUMENTS_PER_WORK_PACKAGE = 1.09  # as bench_search.py: wiki pages and meetings beside
QUERY_SAMPLE = 120_000  # as bench_search.py: larger corpora draw queries from a sample


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sizes = parser.add_mutually_exclusive_group()
    sizes.add_argument("--work-packages", type=int, nargs="+", metavar="N")
    sizes.add_argument(
        "--documents",
        type=int,
        nargs="+",
        metavar="N",
        help="corpus sizes in documents, as bench_search.py --sizes names them",
    )
    parser.add_argument("--vocabulary", choices=VOCABULARIES, default="templates")
    parser.add_argument("--build", choices=BUILD_METHODS, default="sync")
    parser.add_argument(
        "--reuse-tenants",
        action="store_true",
        help="reuse a cached tenant of the same corpus built by other code (bench_search.py)",
    )
    parser.add_argument("--query-sample", type=int, default=QUERY_SAMPLE, metavar="DOCUMENTS")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--query-seed", type=int, default=1)
    parser.add_argument("--per-category", type=int, default=40)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--out", default="mcp")
    return parser.parse_args(argv)


async def measure(
    queries: list[KnownItemQuery], tenant: TenantData, corpus: Path, workdir: Path
) -> dict[str, Any]:
    in_process: list[Answer] = []
    over_mcp: list[Answer] = []
    with sandbox_process(corpus) as sandbox:
        config_path = write_config(
            workdir / "opindex.toml",
            tenant.data_dir,
            [TenantEntry(tenant.tenant, sandbox.base_url, ADMIN_KEY)],
        )
        paths = ServicePaths(
            bench_config(tenant.data_dir, tenant.tenant, sandbox.base_url), tenant.tenant
        )
        before = sandbox.requests()
        try:
            async with stdio_client(config_path, tenant.tenant) as client:
                for query in queries[:WARM_UP]:
                    await call_search(client, query.kind, query.query)
                    await paths.search(query, "index")
                for query in queries:
                    in_process.append(await paths.search(query, "index"))
                    over_mcp.append(await call_search(client, query.kind, query.query))
        finally:
            await paths.aclose()
        requests = sandbox.requests() - before
    same = sum(1 for a, b in zip(in_process, over_mcp, strict=True) if a.ids == b.ids)
    inner = latency_summary([a.seconds for a in in_process])
    outer = latency_summary([a.seconds for a in over_mcp])
    overheads = [b.seconds - a.seconds for a, b in zip(in_process, over_mcp, strict=True)]
    return {
        "queries": len(queries),
        "in_process": inner,
        "mcp_stdio": outer,
        "mcp_overhead": latency_summary(overheads),
        "identical_answers": same,
        "mcp_errors": sum(1 for a in over_mcp if a.error is not None),
        "api_requests": requests,
    }


def _queries(corpus: Path, documents: int, args: argparse.Namespace) -> list[KnownItemQuery]:
    """The corpus's query file: where bench_search.py keeps it for Zipf corpora (a sample's
    above --query-sample documents), under queries/ for template corpora."""
    root = RESULTS / ("queries" if args.vocabulary == "templates" else "corpora")
    if args.vocabulary != "templates" and args.query_sample and documents > args.query_sample:
        items = corpus_items(sample_corpus(corpus, args.query_sample))
        root = root / f"sample-{args.query_sample}"
    else:
        items = corpus_items(load_corpus(corpus))
    _, queries = ensure_queries(corpus, items, args.query_seed, args.per_category, root)
    return queries


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if args.documents:
        sizes = [(round(d / DOCUMENTS_PER_WORK_PACKAGE), d) for d in args.documents]
    else:
        sizes = [
            (wp, round(wp * DOCUMENTS_PER_WORK_PACKAGE)) for wp in args.work_packages or [10_000]
        ]
    rows = []
    for size, documents in sizes:
        corpus = ensure_corpus(size, args.seed, RESULTS / "corpora", args.vocabulary)
        queries = _queries(corpus, documents, args)
        build = build_tenant(corpus, RESULTS / "tenants", args.build, any_code=args.reuse_tenants)
        tenant = build.tenant
        sample = mixed_sample(queries, args.queries)
        load_before = os.getloadavg()[0]
        figures = asyncio.run(measure(sample, tenant, corpus, RESULTS / "mcp"))
        rows.append(
            {
                "work_packages": size,
                "label": size_label(size),
                "documents": sum(tenant.sync["documents"].values()),
                "corpus": corpus.name,
                "vocabulary": args.vocabulary,
                "build": build.to_json(),
                "tenant_dir": str(tenant.data_dir),
                "load_average": [load_before, os.getloadavg()[0]],
                **figures,
            }
        )
        inner, outer = figures["in_process"], figures["mcp_stdio"]
        print(
            f"{size_label(size):>6}  {rows[-1]['documents']:,} documents ({args.vocabulary}, "
            f"{args.build})  in process p50 {inner['p50_ms']:6.1f} ms p95 "
            f"{inner['p95_ms']:6.1f} ms  |  MCP stdio p50 {outer['p50_ms']:6.1f} ms p95 "
            f"{outer['p95_ms']:6.1f} ms  |  same answers {figures['identical_answers']}/"
            f"{figures['queries']}  API requests {figures['api_requests']}  load "
            f"{load_before:.1f}-{os.getloadavg()[0]:.1f}"
        )
    result = {"benchmark": "mcp", **context(), "sizes": rows}
    print(f"wrote {write_result(args.out, result)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
