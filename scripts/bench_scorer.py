"""Benchmark the scorer: rank 1,000 pre-analysed records for 1-, 3- and 6-token queries.

Prints median wall and CPU time per ranking call, side by side with a naive baseline that
scores every token occurrence with ``score_token`` (the spec's literal algorithm), and the
ratio between them. Writes the figures to bench-results/scorer.json.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

from opindex.search.analysis import AnalyzedDocument, AnalyzedText, analyze_document
from opindex.search.document import FieldValue, SearchDocument
from opindex.search.fields import FIELD_SPECS, rank_documents
from opindex.search.match import BASE_SCALE, round_score
from opindex.search.query import parse_query
from opindex.search.score import score_token

SYLLABLES = ["ka", "lo", "mi", "ne", "ru", "ta", "vo", "si", "de", "ba", "po", "gu", "fe", "zi"]
REAL_WORDS = [
    "budget", "approval", "meeting", "release", "deploy", "hiring", "design", "review",
    "customer", "invoice", "security", "migration", "roadmap", "sprint", "backlog", "defect",
]  # fmt: skip
QUERIES = {
    1: "budgt",
    3: "budget aproval meeting",
    6: "release deploy customer invoice securty review",
}


def _vocabulary(rng: random.Random, size: int) -> list[str]:
    words = set(REAL_WORDS)
    while len(words) < size:
        words.add("".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 5))))
    ordered = sorted(words)
    rng.shuffle(ordered)
    return ordered


def _corpus(count: int, body_words: int, vocab_size: int, seed: int) -> list[AnalyzedDocument]:
    """Wiki pages with a 6-word title and a Zipf-distributed body, analysed once."""
    rng = random.Random(seed)
    vocabulary = _vocabulary(rng, vocab_size)
    weights = [1.0 / (rank + 1) for rank in range(len(vocabulary))]
    documents = []
    for record_id in range(1, count + 1):
        title = " ".join(rng.choices(vocabulary, weights, k=6)).capitalize()
        body = " ".join(rng.choices(vocabulary, weights, k=body_words)) + "."
        document = SearchDocument(
            kind="wiki_page",
            id=record_id,
            fields={"title": (FieldValue(title),), "text": (FieldValue(body),)},
        )
        documents.append(analyze_document(document))  # tokenized once, "at store time"
    return documents


def _naive_rank(documents: list[AnalyzedDocument], query: str, limit: int) -> list[int]:
    """Baseline: every token occurrence scored with score_token, no memo, no filter."""
    terms = [term.alternatives[0].token for term in parse_query(query).terms]
    weights = {spec.name: spec.weight / 3.0 for spec in FIELD_SPECS["wiki_page"]}
    ranked: list[tuple[float, int]] = []
    for document in documents:
        best_raw, best_weighted = 0.0, 0.0
        for name, values in document.fields.items():
            for value in values:
                score = _naive_value_score(terms, value)
                best_raw = max(best_raw, score)
                best_weighted = max(best_weighted, score * weights[name])
        if round_score(best_raw) >= 0.35:
            ranked.append((-round_score(best_weighted), document.id))
    ranked.sort()
    return [doc_id for _, doc_id in ranked[:limit]]


def _naive_value_score(terms: list[str], value: AnalyzedText) -> float:
    bests = [
        max((score_token(term, token) for token in value.tokens), default=0.0) for term in terms
    ]
    covered = sum(1 for best in bests if best > 0)
    if not covered:
        return 0.0
    base = (sum(bests) / len(bests)) * (covered / len(bests)) * BASE_SCALE
    return min(1.0, base + 0.15) if value.contains_sequence(terms) else base


def _medians_ms(call: Callable[[], object], runs: int) -> tuple[float, float]:
    """Median wall-clock and median CPU time of *call*, in milliseconds.

    CPU time is reported too because wall time is inflated when other processes compete
    for the cores; CPU time is the cost of the call itself.
    """
    wall, cpu = [], []
    for _ in range(runs):
        wall_start, cpu_start = time.perf_counter(), time.process_time()
        call()
        cpu.append((time.process_time() - cpu_start) * 1000)
        wall.append((time.perf_counter() - wall_start) * 1000)
    return statistics.median(wall), statistics.median(cpu)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--records", type=int, default=1000)
    parser.add_argument("--words", type=int, default=200)
    parser.add_argument("--vocabulary", type=int, default=8000)
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--baseline-runs", type=int, default=3)
    parser.add_argument("--json", type=Path, default=Path("bench-results/scorer.json"))
    args = parser.parse_args()
    documents = _corpus(args.records, args.words, args.vocabulary, seed=7)
    distinct = statistics.mean(len(d.fields["text"][0].distinct) for d in documents)
    print(
        f"{args.records} records, {args.words}-word bodies, vocabulary {args.vocabulary}, "
        f"~{distinct:.0f} distinct tokens per body; median of {args.runs} runs "
        f"(baseline {args.baseline_runs}); load average {os.getloadavg()[0]:.2f} "
        f"on {os.cpu_count()} cores"
    )
    header = f"{'tokens':>6}  {'query':<48} {'wall ms':>8} {'cpu ms':>7} {'naive cpu ms':>13}"
    print(header + f" {'ratio':>6}  same top 20")
    rows: list[dict[str, object]] = []
    for tokens, query in QUERIES.items():
        fast = partial(rank_documents, documents, query, "wiki_page", limit=20)
        naive = partial(_naive_rank, documents, query, 20)
        wall, cpu = _medians_ms(fast, args.runs)
        _, naive_cpu = _medians_ms(naive, args.baseline_runs)
        same = [r.record.id for r in fast()] == naive()
        print(
            f"{tokens:>6}  {query:<48} {wall:>8.1f} {cpu:>7.1f} {naive_cpu:>13.1f}"
            f" {naive_cpu / cpu:>5.0f}x  {same}"
        )
        rows.append(
            {
                "tokens": tokens,
                "query": query,
                "wall_ms": wall,
                "cpu_ms": cpu,
                "naive_cpu_ms": naive_cpu,
                "same_top20": same,
            }
        )
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps({"records": args.records, "rows": rows}, indent=2))


if __name__ == "__main__":
    main()
