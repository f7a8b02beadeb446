"""Recall of paraphrase queries by words (index path), by meaning (vector store) and fused.

python scripts/eval_meaning.py                  # both splits, both corpora
python scripts/eval_meaning.py --depth 50 --weak-word-weight 0.5 --out meaning

Each query of scripts/evaldata/meaning_queries.json describes one record without its
title words. The corpora (the shipped sample, and a generated template corpus) are
synced by the real syncer (cached under bench-results/tenants/). Then, per query:

- lexical: the index path through the service façade (``source="index"``), as the MCP
  tools answer; its hits are *confident* when the answer needed no relaxation (every
  query word matched);
- semantic: the bundled model's query vector against a vector store built from every
  record the index holds, filtered to the query's kind;
- fused: ``opindex.engine.fusion.fuse`` of the two (``auto`` mode).

A query is answered when a record of its kind titled like its target ranks within the
top 10. Reports recall@10 and MRR@10 per split, kind and method, and writes
bench-results/<out>.json.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evallib.corpora import ensure_queries
from evallib.corpus_view import corpus_items, load_corpus
from evallib.paraphrases import SPLITS, Paraphrase, load_paraphrases, plain_title
from evallib.querygen import KnownItemQuery
from evallib.results_io import RESULTS, write_result
from evallib.search_paths import Answer, ServicePaths, bench_config
from evallib.tenant_data import TenantData, ensure_tenant
from evallib.zipf_corpus import write_generated
from opindex.embedding import BundledEmbedder
from opindex.engine.fusion import RRF_K, WEAK_WORD_WEIGHT, LexicalHit, SemanticHit, fuse
from opindex.engine.vectors import VectorStore, embed_records
from opindex.index import TenantIndex
from opindex.records import Record
from opindex.sandbox.corpus_gen import CorpusSize, with_publications
from opindex.sandbox.sample_corpus import sample_corpus_path
from opindex.search import KINDS, Kind
from opindex.sync import index_directory

METHODS = ("lexical", "semantic", "fused")
CUTOFF = 10
TENANT = "meaning"
UNUSED_LIVE_URL = "http://127.0.0.1:9"  # the index path never calls it
RecordKey = tuple[str, int]
KNOWN_ITEMS = "known_items"


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--depth", type=int, default=50, help="hits taken from each path")
    parser.add_argument("--weak-word-weight", type=float, default=WEAK_WORD_WEIGHT)
    parser.add_argument("--rrf-k", type=int, default=RRF_K)
    parser.add_argument(
        "--confident-score",
        type=float,
        default=0.0,
        help="a word hit is confident when the query needed no relaxation and its score"
        " (0..1, field-weighted: a title match scores high) reaches this",
    )
    parser.add_argument(
        "--known-per-category",
        type=int,
        default=10,
        help="generated known-item control queries per category and corpus",
    )
    parser.add_argument("--out", default="meaning", help="result name under bench-results/")
    return parser.parse_args(argv)


def template_corpus(settings: dict[str, Any]) -> Path:
    """The generated template corpus the queries were written for (made once, cached)."""
    name = f"meaning-template-{settings['work_packages']}-s{settings['seed']}.json"
    path = RESULTS / "corpora" / name
    if not path.is_file():
        path.parent.mkdir(parents=True, exist_ok=True)
        size = CorpusSize.proportional(settings["work_packages"])
        if settings["publications"]:
            size = with_publications(size)
        partial = path.with_suffix(".partial")
        write_generated(size, settings["seed"], "templates", partial)
        partial.rename(path)
    return path


def indexed_records(tenant: TenantData) -> list[Record]:
    """Every record the tenant's index holds."""
    records: list[Record] = []
    with TenantIndex(index_directory(tenant.data_dir, tenant.tenant)) as index:
        for kind in KINDS:
            for record_id in index.all_ids(kind):
                record = index.get(kind, record_id)
                if record is not None:
                    records.append(record)
    return records


@dataclass(frozen=True, slots=True)
class EvalQuery:
    """One query to answer on every method: a paraphrase (answered by any record of its
    kind titled *title*) or a generated known-item query (answered by *expected_id*).
    *group* is the row it is reported under: its kind, or its known-item category."""

    split: str
    corpus: str
    kind: Kind
    group: str
    query: str
    title: str | None = None
    expected_id: int | None = None


@dataclass(slots=True)
class CorpusRun:
    """One synced corpus: its index path, its vector store and its records' titles."""

    tenant: TenantData
    paths: ServicePaths
    store: VectorStore
    titles: dict[RecordKey, str]
    figures: dict[str, Any]


def prepare(corpus: Path, embedder: BundledEmbedder, work: Path) -> CorpusRun:
    tenant = ensure_tenant(corpus, RESULTS / "tenants", TENANT)
    records = indexed_records(tenant)
    started = time.perf_counter()
    entries = embed_records(records, embedder)
    embedded = time.perf_counter() - started
    store = VectorStore.create(
        work / f"{corpus.stem}.vectors",
        entries,
        model=embedder.model_id,
        dimension=embedder.dimension,
    )
    figures = {
        "records": len(records),
        "chunks": store.chunk_count,
        "embed_seconds": round(embedded, 3),
        "chunks_per_second": round(store.chunk_count / embedded) if embedded else None,
        "vector_file_bytes": store.path.stat().st_size,
    }
    config = bench_config(tenant.data_dir, tenant.tenant, UNUSED_LIVE_URL)
    titles: dict[RecordKey, str] = {(r.document.kind, r.id): plain_title(r.title) for r in records}
    return CorpusRun(tenant, ServicePaths(config, tenant.tenant), store, titles, figures)


def rank(keys: Sequence[RecordKey], q: EvalQuery, titles: dict[RecordKey, str]) -> int | None:
    """1-based position of the query's answer within the top ``CUTOFF``, or None."""
    for position, key in enumerate(keys[:CUTOFF], start=1):
        if q.expected_id is not None and key == (q.kind, q.expected_id):
            return position
        if q.title is not None and key[0] == q.kind and titles.get(key) == q.title:
            return position
    return None


async def answer(
    q: EvalQuery, run: CorpusRun, embedder: BundledEmbedder, args: argparse.Namespace
) -> dict[str, Any]:
    known = KnownItemQuery(
        qid=q.query, category="title", kind=q.kind, query=q.query, expected_id=None
    )
    words: Answer = await run.paths.search(known, "index", limit=args.depth)
    if words.error is not None:
        raise SystemExit(f"index path failed on {q.query!r}: {words.error}")
    lexical = [
        LexicalHit((q.kind, record_id), score, not words.relaxed and score >= args.confident_score)
        for record_id, score in zip(words.ids, words.scores, strict=True)
    ]
    vector = embedder.embed([q.query])[0]
    found = run.store.search(vector, args.depth, run.store.kind_mask({q.kind}))
    semantic = [SemanticHit((hit.kind, hit.id), hit.score) for hit in found]
    fused = fuse(
        lexical,
        semantic,
        limit=args.depth,
        rrf_k=args.rrf_k,
        weak_word_weight=args.weak_word_weight,
    )
    keys: dict[str, list[RecordKey]] = {
        "lexical": [hit.key for hit in lexical],
        "semantic": [hit.key for hit in semantic],
        "fused": [hit.key for hit in fused],
    }
    ranks = {method: rank(keys[method], q, run.titles) for method in METHODS}
    fused_rank = ranks["fused"]
    return {
        "split": q.split,
        "corpus": q.corpus,
        "kind": q.kind,
        "group": q.group,
        "query": q.query,
        "title": q.title,
        "expected_id": q.expected_id,
        "confident": any(hit.confident for hit in lexical),
        "ranks": ranks,
        "found_by": fused[fused_rank - 1].found_by if fused_rank else None,
    }


def summarize(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """recall@10 and MRR@10 per split, per group (and ``all``), per method."""
    groups: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        groups[(row["split"], row["group"])].append(row)
        groups[(row["split"], "all")].append(row)
    table: dict[str, Any] = {}
    for (split, kind), members in sorted(groups.items()):
        cell: dict[str, Any] = {"queries": len(members)}
        for method in METHODS:
            ranks = [m["ranks"][method] for m in members]
            cell[method] = {
                "recall@10": round(sum(1 for r in ranks if r) / len(ranks), 3),
                "mrr": round(sum(1 / r for r in ranks if r) / len(ranks), 3),
            }
        table.setdefault(split, {})[kind] = cell
    return table


def markdown(table: dict[str, Any]) -> str:
    lines = []
    for split in (*SPLITS, KNOWN_ITEMS):
        lines += [
            f"\n{split} (recall@10 / MRR@10)\n",
            "| group | n | lexical | semantic | fused |",
            "| --- | ---: | --- | --- | --- |",
        ]
        kinds = sorted(table.get(split, {}), key=lambda k: (k == "all", k))
        for kind in kinds:
            cell = table[split][kind]
            figures = [f"{cell[m]['recall@10']:.3f} / {cell[m]['mrr']:.3f}" for m in METHODS]
            lines.append(f"| {kind} | {cell['queries']} | " + " | ".join(figures) + " |")
    return "\n".join(lines)


async def answer_all(
    queries: list[EvalQuery],
    runs: dict[str, CorpusRun],
    embedder: BundledEmbedder,
    args: argparse.Namespace,
) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    try:
        for q in queries:
            rows.append(await answer(q, runs[q.corpus], embedder, args))
    finally:
        for prepared in runs.values():
            await prepared.paths.aclose()
    return rows


def paraphrase_queries(paraphrases: list[Paraphrase]) -> list[EvalQuery]:
    return [
        EvalQuery(p.split, p.corpus, p.kind, p.kind, p.query, title=p.title) for p in paraphrases
    ]


def known_item_queries(name: str, corpus: Path, per_category: int) -> list[EvalQuery]:
    """Generated known-item queries of *corpus* (title words, typos, reordering...): the
    control that fusion must not lose. No-hit queries are left out (nothing to find)."""
    items = corpus_items(load_corpus(corpus))
    _, generated = ensure_queries(corpus, items, 1, per_category, RESULTS / "queries")
    return [
        EvalQuery(KNOWN_ITEMS, name, q.kind, q.category, q.query, expected_id=q.expected_id)
        for q in generated
        if q.expected_id is not None
    ]


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    settings, paraphrases = load_paraphrases()
    embedder = BundledEmbedder()
    corpora = {"sample": sample_corpus_path(), "template": template_corpus(settings["template"])}
    queries = paraphrase_queries(paraphrases)
    for name, path in corpora.items():
        queries += known_item_queries(name, path, args.known_per_category)
    with tempfile.TemporaryDirectory(prefix="eval-meaning-") as work:
        runs = {name: prepare(path, embedder, Path(work)) for name, path in corpora.items()}
        rows = asyncio.run(answer_all(queries, runs, embedder, args))
    figures = {name: prepared.figures for name, prepared in runs.items()}
    table = summarize(rows)
    print(markdown(table))
    print("\nstores: " + ", ".join(f"{k}: {v}" for k, v in figures.items()))
    path = write_result(
        args.out,
        {
            "model": embedder.model_id,
            "settings": {
                "depth": args.depth,
                "weak_word_weight": args.weak_word_weight,
                "rrf_k": args.rrf_k,
                "confident_score": args.confident_score,
            },
            "stores": figures,
            "summary": table,
            "queries": rows,
        },
    )
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
