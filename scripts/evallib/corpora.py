"""Generated corpora and their known-item query files, written once and reused."""

from __future__ import annotations

import json
import time
from collections import Counter
from pathlib import Path
from typing import Any

from evallib.corpus_view import CorpusItem
from evallib.oracle import ExhaustiveRanker, corpus_document
from evallib.querygen import GENERATOR_VERSION, KnownItemQuery, QueryGenerator
from evallib.tenant_data import file_hash
from evallib.zipf_corpus import write_generated
from opindex.sandbox.corpus_gen import CorpusSize

QUERY_FILE_VERSION = 1


def size_label(work_packages: int) -> str:
    """``1k``, ``10k``, ``100k``, or the number itself."""
    if work_packages % 1000 == 0 and work_packages >= 1000:
        return f"{work_packages // 1000}k"
    return str(work_packages)


def generation_file(corpus: Path) -> Path:
    """Where :func:`ensure_corpus` records how long generating *corpus* took."""
    return corpus.with_name(f"{corpus.stem}.generated.json")


def generation_seconds(corpus: Path) -> float | None:
    """Seconds the generation of *corpus* took, if :func:`ensure_corpus` generated it."""
    try:
        info = json.loads(generation_file(corpus).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    seconds = info.get("seconds") if isinstance(info, dict) else None
    return float(seconds) if isinstance(seconds, int | float) else None


def ensure_corpus(work_packages: int, seed: int, root: Path, vocabulary: str = "templates") -> Path:
    """``<root>/corpus-<size>-s<seed>.json`` (``corpus-zipf-…`` with the Zipf vocabulary),
    generated unless it exists (deterministic); the generation time is kept beside it
    (:func:`generation_seconds`)."""
    prefix = "corpus" if vocabulary == "templates" else f"corpus-{vocabulary}"
    path = root / f"{prefix}-{size_label(work_packages)}-s{seed}.json"
    if not path.is_file():
        root.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(".partial")
        started = time.perf_counter()
        written = write_generated(CorpusSize.proportional(work_packages), seed, vocabulary, partial)
        seconds = time.perf_counter() - started
        partial.rename(path)
        info = {"seconds": seconds, "bytes": written, "vocabulary": vocabulary, "seed": seed}
        generation_file(path).write_text(json.dumps(info) + "\n", encoding="utf-8")
    return path


def write_queries(
    path: Path, queries: list[KnownItemQuery], corpus: Path, seed: int, per_category: int
) -> None:
    """A query file: the queries with their expected answers, and the corpus they fit."""
    data = {
        "version": QUERY_FILE_VERSION,
        "corpus": {"file": corpus.name, "sha256": file_hash(corpus)},
        "seed": seed,
        "per_category": per_category,
        "counts": dict(Counter(q.category for q in queries)),
        "queries": [q.to_json() for q in queries],
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def read_queries(path: Path, corpus: Path | None = None) -> list[KnownItemQuery]:
    """The queries of a query file; ValueError if it was made for another corpus."""
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    if data.get("version") != QUERY_FILE_VERSION:
        raise ValueError(f"{path}: unknown query file version {data.get('version')!r}")
    if corpus is not None and data["corpus"]["sha256"] != file_hash(corpus):
        raise ValueError(
            f"{path} was generated from {data['corpus']['file']}, not from {corpus} "
            "(different content); pass the matching --corpus"
        )
    return [KnownItemQuery.from_json(entry) for entry in data["queries"]]


def ensure_queries(
    corpus: Path, items: list[CorpusItem], seed: int, per_category: int, root: Path
) -> tuple[Path, list[KnownItemQuery]]:
    """The corpus's query file for (*seed*, *per_category*), generated unless it exists."""
    name = f"queries-{corpus.stem}-q{seed}-n{per_category}-g{GENERATOR_VERSION}.json"
    path = root / name
    if path.is_file():
        try:
            return path, read_queries(path, corpus)
        except ValueError:
            pass  # the corpus changed: generate again
    ranker = ExhaustiveRanker(corpus_document(item) for item in items)
    generator = QueryGenerator(
        items, seed=seed, per_category=per_category, zero_hits=ranker.zero_hits
    )
    queries = generator.generate()
    write_queries(path, queries, corpus, seed, per_category)
    return path, queries


def _kinds_interleaved(queries: list[KnownItemQuery]) -> list[KnownItemQuery]:
    """*queries* (one category) reordered to alternate kinds, each kind in file order."""
    lanes: dict[str, list[KnownItemQuery]] = {}
    for query in queries:
        lanes.setdefault(query.kind, []).append(query)
    ordered: list[KnownItemQuery] = []
    depth = 0
    while len(ordered) < len(queries):
        ordered += [lane[depth] for lane in lanes.values() if depth < len(lane)]
        depth += 1
    return ordered


def mixed_sample(queries: list[KnownItemQuery], count: int) -> list[KnownItemQuery]:
    """*count* queries taken round-robin across categories, and within a category across
    kinds, so any prefix of the sample is mixed too (deterministic)."""
    by_category: dict[str, list[KnownItemQuery]] = {}
    for query in queries:
        by_category.setdefault(query.category, []).append(query)
    lanes = [_kinds_interleaved(lane) for lane in by_category.values()]
    sample: list[KnownItemQuery] = []
    position = 0
    while len(sample) < count and any(position < len(lane) for lane in lanes):
        for lane in lanes:
            if position < len(lane) and len(sample) < count:
                sample.append(lane[position])
        position += 1
    return sample
