"""Recall of known-item queries on the index path, the live path and an exact-substring baseline.

python scripts/eval_recall.py --work-packages 10000            # generate corpus + queries
python scripts/eval_recall.py --corpus FILE --queries FILE     # replay a query file exactly

Generates (or replays) known-item queries per category from a generated corpus, answers
each on the index path and the live path (service façade, sandbox over HTTP) and with
the substring rule of OpenProject's own ``~`` filter, and reports recall@1, recall@10 and
MRR per category and path, no-hit precision, relaxation success, API requests and
latency per search, and oracle agreement (index top 10 vs an exhaustive re-rank of every
indexed record with the same scorer). Misses of the index path are explained. Writes
bench-results/<out>.json; the query file lands in bench-results/queries/.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evallib.baseline import SubstringBaseline
from evallib.corpora import ensure_corpus, ensure_queries, read_queries, size_label
from evallib.corpus_view import CorpusItem, corpus_items, load_corpus
from evallib.cost_rows import cost_row
from evallib.diagnose import explain_miss
from evallib.metrics import NO_HIT, OVERALL, Outcome, latency_summary, summarize
from evallib.oracle import ExhaustiveRanker
from evallib.profiling import profile_index_path
from evallib.querygen import CATEGORIES, KnownItemQuery
from evallib.results_io import RESULTS, context, write_result
from evallib.sandbox_proc import sandbox_process
from evallib.search_paths import Answer, ServicePaths, bench_config, substring_answer
from evallib.tenant_data import TenantData, ensure_tenant, file_hash
from opindex.index import TenantIndex
from opindex.search.document import KINDS, SearchDocument
from opindex.sync import index_directory

PATHS = ("index", "live", "substring")
WARM_UP = 5
WEAKEST_SHOWN = 3
EXAMPLES_PER_CATEGORY = 5


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--work-packages", type=int, default=10_000, metavar="N")
    parser.add_argument("--seed", type=int, default=7, help="corpus seed")
    parser.add_argument("--corpus", type=Path, help="an existing corpus file instead")
    parser.add_argument("--queries", type=Path, help="replay this query file")
    parser.add_argument("--query-seed", type=int, default=1)
    parser.add_argument("--per-category", type=int, default=40, metavar="N")
    parser.add_argument(
        "--live-per-category",
        type=int,
        default=None,
        metavar="N",
        help="live path on N queries of each category only, evenly spread (default all; 0: none)",
    )
    parser.add_argument(
        "--latency-ms", type=float, default=20.0, help="added by the sandbox to every request"
    )
    parser.add_argument("--profile", type=int, default=10, help="profile the N slowest queries")
    parser.add_argument("--no-oracle", action="store_true", help="skip oracle agreement")
    parser.add_argument("--out", default="recall", help="result name under bench-results/")
    return parser.parse_args(argv)


def _outcome(query: KnownItemQuery, path: str, answer: Answer) -> Outcome:
    return Outcome(
        qid=query.qid,
        category=query.category,
        path=path,
        expected_id=query.expected_id,
        ids=answer.ids,
        relaxed=answer.relaxed,
        strategy=answer.strategy,
        seconds=answer.seconds,
        requests=answer.requests,
        degraded=answer.degraded,
        error=answer.error,
    )


def repository_path(path: Path) -> str:
    """*path* relative to the repository when inside it (as the page shows it)."""
    try:
        return str(path.resolve().relative_to(RESULTS.parent))
    except ValueError:
        return str(path)


def indexed_documents(tenant: TenantData) -> dict[tuple[str, int], SearchDocument]:
    """Every document the tenant's index holds, by (kind, id)."""
    documents: dict[tuple[str, int], SearchDocument] = {}
    with TenantIndex(index_directory(tenant.data_dir, tenant.tenant)) as index:
        for kind in KINDS:
            for record_id in index.all_ids(kind):
                record = index.get(kind, record_id)
                if record is not None:
                    documents[(kind, record_id)] = record.document
    return documents


def live_subset(queries: list[KnownItemQuery], per_category: int | None) -> set[str]:
    """Ids of the queries the live path answers: *per_category* of each category, evenly
    spaced through it so every kind keeps its share (all when None)."""
    by_category: dict[str, list[str]] = {}
    for query in queries:
        by_category.setdefault(query.category, []).append(query.qid)
    chosen: set[str] = set()
    for qids in by_category.values():
        if per_category is None or per_category >= len(qids):
            chosen.update(qids)
        elif per_category > 0:
            step = len(qids) / per_category
            chosen.update(qids[int(i * step)] for i in range(per_category))
    return chosen


async def answer_all(
    queries: list[KnownItemQuery],
    paths: ServicePaths,
    baseline: SubstringBaseline,
    live_qids: set[str],
) -> tuple[list[Outcome], dict[str, dict[str, Answer]], dict[str, Any]]:
    """Every query on the index path and the baseline, those in *live_qids* on the live
    path too, in turn query by query (after a short warm-up), so both paths' latency and
    API requests per search are measured side by side. Returns outcomes, answers by path
    and figures of the run."""
    outcomes: list[Outcome] = []
    answers: dict[str, dict[str, Answer]] = {name: {} for name in PATHS}
    for query in queries[:WARM_UP]:  # open the index, detect capabilities, warm caches
        await paths.search(query, "index")
        if live_qids:
            await paths.search(query, "live")
    started = time.perf_counter()
    for number, query in enumerate(queries, start=1):
        chosen = [("index", await paths.search(query, "index"))]
        if query.qid in live_qids:
            chosen.append(("live", await paths.search(query, "live")))
        chosen.append(("substring", substring_answer(baseline, query)))
        for name, answer in chosen:
            answers[name][query.qid] = answer
            outcomes.append(_outcome(query, name, answer))
        if number % 50 == 0:
            elapsed = time.perf_counter() - started
            print(f"  {number}/{len(queries)} queries, {elapsed:.0f} s", file=sys.stderr)
    counted = [a.requests for a in answers["live"].values() if a.requests is not None]
    live = {
        "queries": len(answers["live"]),
        "requests_mean": sum(counted) / len(counted) if counted else None,
        "run_seconds": time.perf_counter() - started,
    }
    return outcomes, answers, live


def oracle_agreement(
    queries: list[KnownItemQuery], index_answers: dict[str, Answer], oracle: ExhaustiveRanker
) -> dict[str, Any]:
    """Index top 10 of the query as written vs the exhaustive re-rank's top 10.

    Relaxation runs only after zero hits, so an answer not flagged as relaxed is the
    primary query's answer, and a relaxed one means the primary query found nothing.
    """
    identical = same_set = 0
    disagreements: list[dict[str, Any]] = []
    seconds: list[float] = []
    for query in queries:
        answer = index_answers[query.qid]
        started = time.perf_counter()
        expected = oracle.rank(query.kind, query.query, limit=10)
        seconds.append(time.perf_counter() - started)
        got = [] if answer.relaxed else list(answer.ids)
        if got == expected:
            identical += 1
            same_set += 1
            continue
        if set(got) == set(expected):
            same_set += 1
        disagreements.append(
            {"qid": query.qid, "kind": query.kind, "query": query.query, "index": got,
             "oracle": expected, "error": answer.error}
        )  # fmt: skip
    total = len(queries)
    return {
        "queries": total,
        "identical_top10": identical,
        "same_set_top10": same_set,
        "agreement": identical / total if total else None,
        "oracle_p50_ms": latency_summary(seconds)["p50_ms"],
        "disagreements": disagreements,
    }


def weakest_categories(
    summary: dict[str, Any],
    explanations: list[dict[str, Any]],
    answers: dict[str, Answer],
    queries: list[KnownItemQuery],
    titles: dict[tuple[str, int], str],
) -> list[dict[str, Any]]:
    """The index path's weakest categories, with example misses (or low ranks).

    Ordered by recall@10, then MRR; the no-hit category takes part only when its
    precision is below 1.
    """
    index = summary.get("index", {})
    ranked = []
    for name, score in index.items():
        if name == OVERALL:
            continue
        if name == NO_HIT:
            if score.no_hit_precision is not None and score.no_hit_precision < 1:
                ranked.append((score.no_hit_precision, 0.0, name))
            continue
        ranked.append((score.recall_at_10 or 0.0, score.mrr or 0.0, name))
    ranked.sort(key=lambda row: (row[0], row[1]))
    weakest = []
    for recall, mrr, name in ranked[:WEAKEST_SHOWN]:
        examples = [e for e in explanations if e["category"] == name][:EXAMPLES_PER_CATEGORY]
        if not examples:  # nothing missed: show the lowest-ranked hits instead
            ranks: list[dict[str, Any]] = []
            for query in queries:
                if query.category != name or query.expected_id is None:
                    continue
                ids = answers[query.qid].ids
                if query.expected_id in ids and ids[0] != query.expected_id:
                    first = answers[query.qid]
                    ranks.append(
                        {
                            "qid": query.qid,
                            "query": query.query,
                            "expected_id": query.expected_id,
                            "expected_title": titles.get((query.kind, query.expected_id), ""),
                            "rank": ids.index(query.expected_id) + 1,
                            "first": {"id": first.ids[0], "title": first.titles[0],
                                      "score": first.scores[0]},
                        }
                    )  # fmt: skip
            examples = sorted(ranks, key=lambda r: -int(r["rank"]))[:EXAMPLES_PER_CATEGORY]
        weakest.append({"category": name, "score": recall, "mrr": mrr, "examples": examples})
    return weakest


def print_tables(summary: dict[str, Any], result: dict[str, Any]) -> None:
    paths = [p for p in PATHS if p in summary]
    print(f"\n{'category':<22}" + "".join(f"{p + ' R@1/R@10/MRR':>28}" for p in paths))
    for category in (*CATEGORIES, OVERALL):
        row = f"{category:<22}"
        for path in paths:
            score = summary[path].get(category)
            if score is None:
                row += f"{'-':>28}"
            elif category == NO_HIT:
                row += f"{'precision ' + format(score.no_hit_precision, '.2f'):>28}"
            else:
                row += f"{score.recall_at_1:>14.2f} /{score.recall_at_10:.2f} /{score.mrr:.2f}"
        print(row)
    for path, cost in result["cost"].items():
        print(
            f"{path:<10} p50 {cost['p50_ms']:8.1f} ms  p95 {cost['p95_ms']:8.1f} ms  "
            f"requests/search mean {cost['requests_mean']}"
        )
    oracle = result.get("oracle")
    if oracle:
        print(f"oracle agreement: {oracle['identical_top10']}/{oracle['queries']} identical top 10")


def cost_of(outcomes: list[Outcome], path: str) -> dict[str, Any]:
    mine = [o for o in outcomes if o.path == path]
    counted = [o.requests for o in mine if o.requests is not None]
    return {
        **latency_summary([o.seconds for o in mine]),
        "requests_mean": round(sum(counted) / len(counted), 2) if counted else None,
        "requests_max": max(counted) if counted else None,
        "queries": len(mine),
    }


@dataclass(frozen=True, slots=True)
class Prepared:
    """Everything a run needs before searching: corpus, queries, synced tenant."""

    corpus: Path
    items: list[CorpusItem]
    query_file: Path
    queries: list[KnownItemQuery]
    tenant: TenantData


def prepare(args: argparse.Namespace) -> Prepared:
    corpus = args.corpus or ensure_corpus(args.work_packages, args.seed, RESULTS / "corpora")
    print(f"corpus {corpus}", file=sys.stderr)
    items = corpus_items(load_corpus(corpus))
    if args.queries is not None:
        query_file, queries = args.queries, read_queries(args.queries, corpus)
    else:
        query_file, queries = ensure_queries(
            corpus, items, args.query_seed, args.per_category, RESULTS / "queries"
        )
    print(f"{len(queries)} queries from {query_file}", file=sys.stderr)
    tenant = ensure_tenant(corpus, RESULTS / "tenants")
    return Prepared(corpus, items, query_file, queries, tenant)


async def run(args: argparse.Namespace, prepared: Prepared) -> dict[str, Any]:
    corpus, items, queries, tenant = (
        prepared.corpus, prepared.items, prepared.queries, prepared.tenant,
    )  # fmt: skip
    baseline = SubstringBaseline(items)
    with sandbox_process(corpus, latency_ms=args.latency_ms) as sandbox:
        config = bench_config(tenant.data_dir, tenant.tenant, sandbox.base_url)
        paths = ServicePaths(config, tenant.tenant, sandbox.requests)
        try:
            live_qids = live_subset(queries, args.live_per_category)
            outcomes, answers, live = await answer_all(queries, paths, baseline, live_qids)
        finally:
            await paths.aclose()
    counts = {kind: sum(1 for i in items if i.kind == kind) for kind in KINDS}
    by_id = {q.qid: q for q in queries}
    row = None
    if answers["live"]:
        row = cost_row(
            args.work_packages if args.corpus is None else counts["work_package"],
            counts,
            corpus.name,
            [(q, answers["index"][q.qid]) for q in queries],
            [(q, answers["live"][q.qid]) for q in queries if q.qid in answers["live"]],
            source="eval_recall",
        )
    profile = None
    if args.profile:
        slowest = sorted(queries, key=lambda q: -answers["index"][q.qid].seconds)
        profile = profile_index_path(tenant, slowest[: args.profile])
        profile["size"] = size_label(counts["work_package"])
    documents = indexed_documents(tenant)
    oracle = ExhaustiveRanker(documents.values())
    oracle_result = None
    if not args.no_oracle:
        print("oracle agreement ...", file=sys.stderr)
        oracle_result = oracle_agreement(queries, answers["index"], oracle)
    summary = summarize(outcomes)
    explanations = [
        explain_miss(by_id[o.qid], answers["index"][o.qid], oracle, documents)
        for o in outcomes
        if o.path == "index" and o.category != NO_HIT and (o.rank is None or o.rank > 10)
    ]
    wrong_no_hits = [
        {"qid": o.qid, "query": by_id[o.qid].query, "kind": by_id[o.qid].kind,
         "returned": list(o.ids[:3])}
        for o in outcomes if o.path == "index" and o.category == NO_HIT and o.ids and not o.relaxed
    ]  # fmt: skip
    result: dict[str, Any] = {
        "benchmark": "recall",
        **context(),
        "corpus": {"file": corpus.name, "sha256": file_hash(corpus), "counts": counts},
        "queries_file": repository_path(prepared.query_file),
        "tenant_sync": tenant.sync,
        "paths": [p for p in PATHS if p in summary],
        "summary": {
            path: {name: score.to_json() for name, score in scores.items()}
            for path, scores in summary.items()
        },
        "latency_ms": args.latency_ms,
        "cost": {path: cost_of(outcomes, path) for path in PATHS if path in summary},
        "cost_row": row,
        "profile": profile,
        "live_run": live,
        "oracle": oracle_result,
        "index_misses": explanations,
        "index_no_hit_errors": wrong_no_hits,
        "weakest": weakest_categories(
            summary,
            explanations,
            answers["index"],
            queries,
            {(i.kind, i.id): i.title for i in items},
        ),
        "queries": [q.to_json() for q in queries],
        "outcomes": [o.to_json() for o in outcomes],
    }
    print_tables(summary, result)
    return result


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    prepared = prepare(args)
    result = asyncio.run(run(args, prepared))
    path = write_result(args.out, result)
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
