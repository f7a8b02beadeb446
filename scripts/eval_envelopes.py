"""Envelopes of a fixed query set, one JSON line each, to compare two versions of opindex.

python scripts/eval_envelopes.py --out bench-results/envelopes-new.jsonl
PYTHONPATH=<old checkout>/src python scripts/eval_envelopes.py --out .../envelopes-old.jsonl
python scripts/eval_envelopes.py --compare old.jsonl new.jsonl
python scripts/eval_envelopes.py --index <tenant>/index --query-file Q --corpus C --out E

A generated corpus (``--work-packages``) is synced in process by the real syncer (cached
under bench-results/, keyed by the source code, so two versions build their own
tenants), or ``--index`` names an existing tenant's index (a benchmark's cached Zipf
tenant) with ``--query-file`` (the known-item queries generated for ``--corpus``); its
mixed known-item queries, the same queries restricted by a project and by open status,
and substring (containment) requests made from them are answered by the index path with
relaxation, and each response envelope is written with a fixed freshness (so only the
answer differs). ``--compare`` prints how many envelopes are byte-identical and the
first differences.
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from evallib.corpora import ensure_corpus, ensure_queries, mixed_sample, read_queries
from evallib.corpus_view import corpus_items, load_corpus
from evallib.results_io import RESULTS
from evallib.tenant_data import ensure_tenant
from opindex.envelope import SearchRequest
from opindex.index import TenantIndex
from opindex.search import Kind
from opindex.search.query import parse_query
from opindex.service import Freshness
from opindex.service.search_flow import envelope, index_answer

FRESH = Freshness("fresh", indexed_at=datetime(2026, 1, 1, tzinfo=UTC), age_seconds=0.0)


def _substring_requests(kind: Kind, text: str) -> list[SearchRequest]:
    """Containment requests made from a query's text: the text itself in exact mode, the
    inside of its longest word in exact mode (with the open status too, for work
    packages), and two of that word's letters (a fuzzy query under 3 characters)."""
    requests = [SearchRequest(kind=kind, query=text, match_mode="exact")]
    word = max(text.split(), key=len, default="")
    if len(word) >= 4:
        inner = word[1:-1]
        requests.append(SearchRequest(kind=kind, query=inner, match_mode="exact"))
        if kind == "work_package":
            requests.append(
                SearchRequest(kind=kind, query=inner, match_mode="exact", status="open")
            )
        requests.append(SearchRequest(kind=kind, query=word[1:3]))
    return requests


def _requests(queries: list[Any]) -> list[SearchRequest]:
    requests: list[SearchRequest] = []
    for query in queries:
        requests.append(SearchRequest(kind=query.kind, query=query.query, limit=10))
        if query.kind == "work_package":
            requests.append(SearchRequest(kind=query.kind, query=query.query, status="open"))
            requests.append(SearchRequest(kind=query.kind, query=query.query, project_id=2))
        requests.extend(_substring_requests(query.kind, query.query))
    requests.append(SearchRequest(kind="work_package", query="", limit=5))
    requests.append(SearchRequest(kind="wiki_page", query="ab", limit=5))
    requests.append(SearchRequest(kind="meeting", query="Budget", match_mode="exact"))
    return requests


def write(work_packages: int, seed: int, count: int, out: Path) -> int:
    """Write the envelopes of a synced generated corpus; returns how many."""
    corpus = ensure_corpus(work_packages, seed, RESULTS)
    items = corpus_items(load_corpus(corpus))
    _, queries = ensure_queries(corpus, items, 1, 40, RESULTS)
    tenant = ensure_tenant(corpus, RESULTS / "tenants")
    return write_from(TenantIndex(tenant.data_dir / tenant.tenant / "index"), queries, count, out)


def write_from(index: TenantIndex, queries: list[Any], count: int, out: Path) -> int:
    """Write the envelopes of *queries* answered from *index*; returns how many."""
    lines: list[str] = []
    for request in _requests(mixed_sample(queries, count)):
        answer = index_answer(index, request, parse_query(request.query, request.match_mode), {})
        response = envelope("bench", request, answer, FRESH, base_url="http://op.example")
        lines.append(json.dumps(response.model_dump(mode="json"), sort_keys=True))
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return len(lines)


def compare(old: Path, new: Path, show: int) -> int:
    """Print the comparison; returns how many envelopes differ."""
    before = old.read_text(encoding="utf-8").splitlines()
    after = new.read_text(encoding="utf-8").splitlines()
    if len(before) != len(after):
        print(f"different query sets: {len(before)} vs {len(after)} envelopes")
        return max(len(before), len(after))
    differing = [(a, b) for a, b in zip(before, after, strict=True) if a != b]
    print(f"{len(before) - len(differing)} of {len(before)} envelopes byte-identical")
    for a, b in differing[:show]:
        left, right = json.loads(a), json.loads(b)
        print(f"- {left['meta']['kind']} {left['meta']['original_query']!r}")
        for key in sorted(set(left["meta"]) | set(right["meta"])):
            if left["meta"].get(key) != right["meta"].get(key):
                print(f"    meta.{key}: {left['meta'].get(key)!r} -> {right['meta'].get(key)!r}")
        ids = [[r["id"] for r in side["results"]] for side in (left, right)]
        if ids[0] != ids[1]:
            print(f"    results: {ids[0]} -> {ids[1]}")
    return len(differing)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--work-packages", type=int, default=2_000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--out", type=Path, default=RESULTS / "envelopes.jsonl")
    parser.add_argument("--compare", type=Path, nargs=2, metavar=("OLD", "NEW"))
    parser.add_argument("--show", type=int, default=20, help="differences to print")
    parser.add_argument("--index", type=Path, help="an existing tenant's index directory")
    parser.add_argument("--query-file", type=Path, help="known-item queries (with --index)")
    parser.add_argument("--corpus", type=Path, help="the corpus the queries were made for")
    args = parser.parse_args(argv)
    if args.compare:
        old, new = args.compare
        compare(old, new, args.show)
        return 0
    if args.index:
        if not (args.query_file and args.corpus):
            parser.error("--index needs --query-file and --corpus")
        queries = read_queries(args.query_file, args.corpus)
        written = write_from(TenantIndex(args.index), queries, args.queries, args.out)
    else:
        written = write(args.work_packages, args.seed, args.queries, args.out)
    print(f"{written} envelopes written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
