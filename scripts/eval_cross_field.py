#!/usr/bin/env python3
"""Cross-field known-item queries on the index path: how often the record comes first.

Queries are a record's title words plus one rare word of a deeper field
(``evallib.cross_field``); ``build`` and ``held_out`` are disjoint halves. Prints, per
half, the share found first, in the top 10, and the MRR (DECISIONS D201).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Sequence
from pathlib import Path

from evallib.corpora import ensure_corpus
from evallib.corpus_view import corpus_items, load_corpus
from evallib.cross_field import CrossFieldQuery, Split, cross_field_queries
from evallib.results_io import RESULTS
from evallib.search_paths import bench_config
from evallib.tenant_data import ensure_tenant
from opindex.envelope import SearchRequest
from opindex.service import Service

TOP = 10


async def ranks(data_dir: Path, tenant: str, queries: Sequence[CrossFieldQuery]) -> list[int]:
    """The rank of each query's record in the index path's top 10 (0: not there)."""
    config = bench_config(data_dir, tenant, "http://sandbox.invalid")
    found: list[int] = []
    async with Service.from_config(config) as service:
        for query in queries:
            request = SearchRequest(kind=query.kind, query=query.query, source="index")
            ids = [result.id for result in (await service.search(request)).results[:TOP]]
            found.append(ids.index(query.expected_id) + 1 if query.expected_id in ids else 0)
    return found


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work-packages", type=int, default=400, metavar="N")
    parser.add_argument("--seed", type=int, default=3, help="corpus seed")
    parser.add_argument("--corpus", type=Path, help="an existing generated corpus file")
    parser.add_argument("--query-seed", type=int, default=0)
    args = parser.parse_args(argv)
    corpus = args.corpus or ensure_corpus(args.work_packages, args.seed, RESULTS / "corpora")
    items = corpus_items(load_corpus(corpus))
    tenant = ensure_tenant(corpus, RESULTS / "tenants")
    halves: tuple[Split, ...] = ("build", "held_out")
    for split in halves:
        queries = cross_field_queries(items, split, seed=args.query_seed)
        if not queries:
            print(f"{split}: no queries", file=sys.stderr)
            continue
        found = asyncio.run(ranks(tenant.data_dir, tenant.tenant, queries))
        first = sum(1 for rank in found if rank == 1) / len(found)
        top = sum(1 for rank in found if rank) / len(found)
        mrr = sum(1 / rank for rank in found if rank) / len(found)
        print(
            f"{split:9} {len(found):4} queries  first {first:.3f}  top10 {top:.3f}  MRR {mrr:.3f}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
