"""Benchmark: median time to rank 1,000 pre-analysed records for 1-, 3- and 6-token queries."""

from __future__ import annotations

import argparse
import os
import random
import statistics
import time

from opindex.search.analysis import AnalyzedDocument, analyze_document
from opindex.search.document import FieldValue, SearchDocument
from opindex.search.fields import rank_documents

SYLLABLES = ["ka", "lo", "mi", "ne", "ru", "ta", "vo", "si", "de", "ba", "po", "gu", "fe", "zi"]
REAL_WORDS = [
    "budget", "approval", "meeting", "release", "deploy", "hiring", "design", "review",
    "customer", "invoice", "security", "migration", "roadmap", "sprint", "backlog", "defect",
]  # fmt: skip


def _vocabulary(rng: random.Random, size: int) -> list[str]:
    words = set(REAL_WORDS)
    while len(words) < size:
        words.add("".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 5))))
    ordered = sorted(words)
    rng.shuffle(ordered)
    return ordered


def _corpus(count: int, body_words: int, vocab_size: int, seed: int) -> list[AnalyzedDocument]:
    rng = random.Random(seed)
    vocabulary = _vocabulary(rng, vocab_size)
    weights = [1.0 / (rank + 1) for rank in range(len(vocabulary))]  # Zipf-like
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


QUERIES = {
    1: "budgt",
    3: "budget aproval meeting",
    6: "release deploy customer invoice securty review",
}


def _medians_ms(
    documents: list[AnalyzedDocument], query: str, limit: int | None, runs: int
) -> tuple[float, float]:
    """Median wall-clock and median CPU time of one ranking call, in milliseconds.

    CPU time is reported too because wall time is inflated when other processes compete
    for the cores; CPU time is the cost of the call itself.
    """
    wall, cpu = [], []
    for _ in range(runs):
        wall_start, cpu_start = time.perf_counter(), time.process_time()
        rank_documents(documents, query, "wiki_page", limit=limit)
        cpu.append((time.process_time() - cpu_start) * 1000)
        wall.append((time.perf_counter() - wall_start) * 1000)
    return statistics.median(wall), statistics.median(cpu)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--records", type=int, default=1000)
    parser.add_argument("--words", type=int, default=200)
    parser.add_argument("--vocabulary", type=int, default=8000)
    parser.add_argument("--runs", type=int, default=21)
    args = parser.parse_args()
    documents = _corpus(args.records, args.words, args.vocabulary, seed=7)
    distinct = sum(len(d.fields["text"][0].distinct) for d in documents) / len(documents)
    print(
        f"{args.records} records, {args.words}-word bodies, vocabulary {args.vocabulary}, "
        f"~{distinct:.0f} distinct tokens per body, median of {args.runs} runs"
    )
    print(f"load average before the run: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    print(f"{'tokens':>6}  {'query':<48} {'limit':>5} {'wall ms':>8} {'cpu ms':>8}")
    for tokens, query in QUERIES.items():
        for limit in (20, None):
            wall, cpu = _medians_ms(documents, query, limit, args.runs)
            shown = "none" if limit is None else str(limit)
            print(f"{tokens:>6}  {query:<48} {shown:>5} {wall:>8.1f} {cpu:>8.1f}")


if __name__ == "__main__":
    main()
