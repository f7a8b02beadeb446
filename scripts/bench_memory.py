"""Peak memory of ``opindex serve`` with many tenants, and index size per byte of text.

python scripts/bench_memory.py --tenants 10 --work-packages 10000 --searches 1000

Copies one synced benchmark tenant (a generated corpus of N work packages plus wiki
pages and meetings) into T tenants of a fresh data directory, each with its own
credential and its own index files, starts ``opindex serve --transport http --no-sync``
and sends S searches (mixed known-item queries, index path) spread evenly over
the tenants through MCP streamable-HTTP clients, one per tenant credential, all
clients at once (each sends its share one after another). Reports the
server's resident set after start-up and its peak (VmHWM) after the searches, and, for
one tenant, index bytes on disk per byte of indexed text (every field value of every
indexed record, UTF-8). Writes bench-results/<out>.json.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import sys
import time
from collections.abc import Sequence
from contextlib import AsyncExitStack
from typing import Any

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from evallib.corpora import ensure_corpus, ensure_queries, mixed_sample
from evallib.corpus_view import corpus_items, load_corpus
from evallib.index_size import TARGET_BYTES_PER_TEXT_BYTE, index_size
from evallib.mcp_session import (
    HttpServer,
    TenantEntry,
    call_search,
    http_server,
    write_config,
)
from evallib.metrics import latency_summary
from evallib.results_io import RESULTS, context, write_result
from evallib.sandbox_proc import sandbox_process
from evallib.tenant_data import copy_tenant, ensure_tenant

TARGET_MB = 200  # the goal: peak RSS <= 200 MB (10^6 bytes), docs/BENCHMARKS.md
TARGET_MIB = TARGET_MB * 1_000_000 / 2**20  # 190.7 MiB: /proc reports KiB (DECISIONS D142)


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tenants", type=int, default=10)
    parser.add_argument("--work-packages", type=int, default=10_000, metavar="N")
    parser.add_argument("--searches", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--query-seed", type=int, default=1)
    parser.add_argument("--per-category", type=int, default=40)
    parser.add_argument("--out", default="memory")
    return parser.parse_args(argv)


def _client(url: str, api_key: str) -> Client:
    http = httpx2.AsyncClient(headers={"X-OpenProject-Api-Key": api_key}, timeout=120)
    return Client(streamable_http_client(url, http_client=http), read_timeout_seconds=120)


async def drive(
    server: HttpServer, keys: list[str], queries: list[Any], searches: int
) -> dict[str, Any]:
    """*searches* searches spread evenly over the tenants: first one per tenant in turn
    (every index opened), then the rest with the T clients side by side. Memory is read
    after start-up, after the first round and at the end."""
    seconds: list[float] = []
    errors = 0
    memory = {"start": server.memory_kib()}

    async def search(client: Client, number: int) -> None:
        nonlocal errors
        query = queries[number % len(queries)]
        answer = await call_search(client, query.kind, query.query)
        seconds.append(answer.seconds)
        errors += answer.error is not None

    async def tenant(position: int, client: Client) -> None:
        for number in range(position + len(keys), searches, len(keys)):
            await search(client, number)

    started = time.perf_counter()
    async with AsyncExitStack() as stack:
        clients = [await stack.enter_async_context(_client(server.url, key)) for key in keys]
        for position, client in enumerate(clients[:searches]):
            await search(client, position)
        memory["every_tenant_opened"] = server.memory_kib()
        await asyncio.gather(*(tenant(i, client) for i, client in enumerate(clients)))
    memory["end"] = server.memory_kib()
    elapsed = time.perf_counter() - started
    return {
        "searches": searches,
        "errors": errors,
        "clients_in_parallel": len(keys),
        "run_seconds": elapsed,
        "memory_kib": memory,
        **latency_summary(seconds),
    }


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    corpus = ensure_corpus(args.work_packages, args.seed, RESULTS / "corpora")
    items = corpus_items(load_corpus(corpus))
    _, queries = ensure_queries(
        corpus, items, args.query_seed, args.per_category, RESULTS / "queries"
    )
    sample = mixed_sample(queries, len(queries))
    tenant = ensure_tenant(corpus, RESULTS / "tenants")
    workdir = RESULTS / "memory"
    shutil.rmtree(workdir, ignore_errors=True)
    names = [f"t{number:02d}" for number in range(args.tenants)]
    keys = [f"bench-memory-key-{number:02d}" for number in range(args.tenants)]
    for name in names:
        copy_tenant(tenant, workdir / "data", name)
    with sandbox_process(corpus) as sandbox:
        entries = [TenantEntry(n, sandbox.base_url, k) for n, k in zip(names, keys, strict=True)]
        config = write_config(workdir / "opindex.toml", workdir / "data", entries)
        with http_server(config) as server:
            time.sleep(1.0)
            before = sandbox.requests()
            searches = asyncio.run(drive(server, keys, sample, args.searches))
            requests = sandbox.requests() - before
    size = index_size(tenant)
    at_start, after = searches["memory_kib"]["start"], searches["memory_kib"]["end"]
    peak_mib = after["VmHWM"] / 1024
    result = {
        "benchmark": "memory",
        **context(),
        "tenants": args.tenants,
        "work_packages_per_tenant": args.work_packages,
        "documents_per_tenant": size["documents"],
        "rss_start_mib": at_start["VmRSS"] / 1024,
        "rss_end_mib": after["VmRSS"] / 1024,
        "peak_rss_mib": peak_mib,
        "peak_rss_mb": after["VmHWM"] * 1024 / 1_000_000,
        "target_peak_mb": TARGET_MB,
        "target_peak_mib": TARGET_MIB,
        "searches": searches,
        "api_requests": requests,
        "index": size,
        "target_bytes_per_text_byte": TARGET_BYTES_PER_TEXT_BYTE,
    }
    shutil.rmtree(workdir / "data", ignore_errors=True)
    print(
        f"{args.tenants} tenants x {size['documents']} documents, {args.searches} searches: "
        f"RSS {at_start['VmRSS'] / 1024:.0f} MiB at start, peak {peak_mib:.1f} MiB = "
        f"{result['peak_rss_mb']:.1f} MB (target <= {TARGET_MB} MB = {TARGET_MIB:.1f} MiB); "
        f"heap {after['RssAnon'] / 1024:.1f} MiB, mapped files {after['RssFile'] / 1024:.1f} MiB "
        f"at the end; search p50 {searches['p50_ms']:.1f} ms over MCP HTTP; "
        f"API requests {requests}"
    )
    print(
        f"index {size['bytes_on_disk'] / 1e6:.1f} MB for {size['text_bytes'] / 1e6:.1f} MB of "
        f"text: {size['bytes_per_text_byte']:.2f} bytes per text byte "
        f"(target <= {TARGET_BYTES_PER_TEXT_BYTE})"
    )
    print(f"wrote {write_result(args.out, result)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
