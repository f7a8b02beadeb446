"""Benchmark: index build speed and candidate retrieval latency per query class.

python scripts/bench_retrieval.py --sizes 10000 100000 --queries 200 --tenants 10

Builds a tenant index from a generated sandbox corpus (opindex.sandbox.corpus_gen) per
size, then times TenantIndex.candidates() for exact, typo, prefix, containment (exact
mode substring), infix and multi-term queries over work packages. --agreement N ranks N
queries over candidates(limit=K) and over the whole corpus (the oracle) and compares the
top 10. With --tenants N, a
fresh process opens N copies of the first index (as a server would) and searches each;
its peak RSS is reported. Prints a Markdown section ready to append to docs/BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

from opindex.index import TenantIndex
from opindex.records import Record
from opindex.sandbox.corpus_gen import CorpusSize, generate_corpus
from opindex.search.analysis import analyze_document
from opindex.search.document import FieldValue, SearchDocument
from opindex.search.fields import rank_documents
from opindex.search.query import Query, parse_query
from opindex.search.tokenizer import token_texts


def _when(value: str | None) -> datetime | None:
    return datetime.fromisoformat(value.replace("Z", "+00:00")) if value else None


def corpus_records(corpus: dict[str, Any]) -> list[Record]:
    """Records of a sandbox corpus (a plain mapping; the syncer goes through the API)."""
    users = {u["id"]: u["name"] for u in corpus["users"]}
    closed = {s["id"]: s["isClosed"] for s in corpus["statuses"]}
    records: list[Record] = []
    for wp in corpus["work_packages"]:
        fields = {
            "subject": (FieldValue(wp["subject"]),),
            "description": (FieldValue(wp.get("description") or ""),),
            "comments": tuple(
                FieldValue(a["comment"], a["id"]) for a in wp.get("activities", []) if a["comment"]
            ),
        }
        records.append(
            Record(
                SearchDocument("work_package", wp["id"], fields),
                title=wp["subject"],
                project_id=wp["project"],
                updated_at=_when(wp.get("updatedAt")),
                attributes={
                    "status_id": wp["status"],
                    "is_closed": closed.get(wp["status"], False),
                    "type_id": wp["type"],
                    "assignee_id": wp.get("assignee"),
                },
            )
        )
    for page in corpus["wiki_pages"]:
        fields = {"title": (FieldValue(page["title"]),), "text": (FieldValue(page["text"]),)}
        records.append(
            Record(SearchDocument("wiki_page", page["id"], fields), page["title"], page["project"])
        )
    for meeting in corpus["meetings"]:
        items = meeting.get("agendaItems", [])
        fields = {
            "title": (FieldValue(meeting["title"]),),
            "location": (FieldValue(meeting.get("location") or ""),),
            "author": (FieldValue(users.get(meeting["author"], "")),),
            "agenda_title": tuple(FieldValue(i["title"], i["id"]) for i in items),
            "agenda_notes": tuple(FieldValue(i.get("notes") or "", i["id"]) for i in items),
            "participants": tuple(FieldValue(users.get(p, "")) for p in meeting["participants"]),
        }
        records.append(
            Record(
                SearchDocument("meeting", meeting["id"], fields),
                meeting["title"],
                meeting["project"],
            )
        )
    return records


def _typo(rng: random.Random, word: str) -> str:
    i = rng.randrange(1, len(word) - 1)
    return word[:i] + word[i + 1] + word[i] + word[i + 2 :]  # transpose two letters


def query_classes(rng: random.Random, records: list[Record]) -> dict[str, Callable[[], Query]]:
    """Query makers per class, drawing words from work package texts."""
    texts = [
        v.text
        for r in records
        if r.document.kind == "work_package"
        for vs in r.document.fields.values()
        for v in vs
    ]
    words = sorted({t for text in texts[:5000] for t in token_texts(text) if t.isalpha()})
    long_words = [w for w in words if len(w) >= 7]

    def substring() -> Query:
        text = rng.choice(texts)
        start = rng.randrange(max(1, len(text) - 12))
        return parse_query(text[start : start + rng.randint(5, 12)], "exact")

    def infix() -> Query:
        word = rng.choice(long_words)
        return parse_query(word[2 : 2 + rng.randint(4, 5)])

    def multi() -> Query:
        text = token_texts(rng.choice(texts))
        start = rng.randrange(max(1, len(text) - 3))
        chosen = text[start : start + 3] or ["budget"]
        chosen[-1] = _typo(rng, chosen[-1]) if len(chosen[-1]) >= 4 else chosen[-1]
        return parse_query(" ".join(chosen))

    return {
        "exact": lambda: parse_query(rng.choice(words)),
        "typo": lambda: parse_query(_typo(rng, rng.choice(long_words))),
        "prefix": lambda: parse_query(rng.choice(long_words)[: rng.randint(3, 5)]),
        "containment": substring,
        "infix": infix,
        "multi-term": multi,
    }


def _ms(values: list[float]) -> tuple[float, float]:
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]
    return statistics.median(ordered) * 1000, p95 * 1000


def _rss_mb(field: str = "VmRSS") -> float:
    """Resident memory of this process (VmHWM: its peak; unlike ru_maxrss, not inherited
    from the forking parent)."""
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    return 0.0


def memory_child(roots: list[Path], queries: int, limit: int) -> None:
    """Open every tenant index, search each, print the RSS figures (child process)."""
    rng = random.Random(1)
    before = _rss_mb()
    indexes = [TenantIndex(root) for root in roots]
    for _ in range(queries):
        for index in indexes:
            words = index.vocabulary().find("", limit=None) or ["budget"]
            word = rng.choice(words)
            text = _typo(rng, word) if len(word) >= 4 else word
            for kind in ("work_package", "wiki_page", "meeting"):
                index.candidates(parse_query(text), kind, limit=limit)
    print(f"{before:.0f} {_rss_mb():.0f} {_rss_mb('VmHWM'):.0f}")


def bench_memory(source: Path, tenants: int, queries: int, limit: int) -> str:
    with tempfile.TemporaryDirectory() as tmp:
        roots = []
        for i in range(tenants):
            root = Path(tmp) / f"tenant{i}" / "index"
            shutil.copytree(source, root)
            roots.append(root)
        args = [sys.executable, __file__, "--memory-child", *map(str, roots)]
        args += ["--queries", str(queries), "--limit", str(limit)]
        output = subprocess.run(args, check=True, capture_output=True, text=True).stdout
    before, after, peak = output.split()
    return (
        f"{tenants} tenants x this index, {queries} searches x 3 kinds each, one process: "
        f"RSS {before} MB after imports, {after} MB after the searches, peak {peak} MB"
    )


def bench_agreement(
    index: TenantIndex, records: list[Record], rng: random.Random, queries: int
) -> list[str]:
    """Top-10 of the ranker over candidates(limit=K) vs over the whole corpus (the oracle)."""
    documents = {
        r.id: analyze_document(r.document) for r in records if r.document.kind == "work_package"
    }
    every = list(documents.values())
    makers = query_classes(rng, records)
    batch = [
        makers[name]() for _ in range(queries // 5) for name in makers if name != "containment"
    ]
    oracle = [
        [r.record.id for r in rank_documents(every, q, "work_package", limit=10)] for q in batch
    ]
    lines = ["| candidate limit | identical top-10 | recall@10 | median candidates() ms |"]
    lines.append("|---|---|---|---|")
    for limit in (50, 100, 200, 500):
        same, recall, timings = 0, [], []
        for query, expected in zip(batch, oracle, strict=True):
            started = time.perf_counter()
            found = index.candidates(query, "work_package", limit=limit)
            timings.append(time.perf_counter() - started)
            picked = [documents[r.id] for r in found]
            got = [r.record.id for r in rank_documents(picked, query, "work_package", limit=10)]
            same += got == expected
            recall.append(len(set(got) & set(expected)) / len(expected) if expected else 1.0)
        lines.append(
            f"| {limit} | {same}/{len(batch)} | {statistics.mean(recall):.3f} | "
            f"{_ms(timings)[0]:.2f} |"
        )
    return lines


def bench_vocabulary(terms: int, lookups: int, seed: int) -> list[str]:
    """Infix lookups at a large vocabulary: ``str.find`` over the analysis store's slices."""
    rng = random.Random(seed)
    letters = "abcdefghijklmnopqrstuvwxyz"
    words = list({"".join(rng.choices(letters, k=rng.randint(5, 12))) for _ in range(terms)})
    with tempfile.TemporaryDirectory() as tmp:
        index = TenantIndex.create(Path(tmp) / "index")
        index.upsert(
            Record(
                SearchDocument(
                    "wiki_page", i, {"text": (FieldValue(" ".join(words[i * 20 : i * 20 + 20])),)}
                ),
                title=str(i),
            )
            for i in range(len(words) // 20)
        )
        index.commit()
        started = time.perf_counter()
        vocabulary = index.vocabulary()
        vocabulary.find("")  # the first look-up folds each slice once
        build = time.perf_counter() - started
        needles = [w[1:5] for w in rng.sample(words, lookups)]
        scan = []
        for needle in needles:
            started = time.perf_counter()
            found = vocabulary.find_ids(needle)
            scan.append(time.perf_counter() - started)
            assert found is not None
        index.close()
    return [
        f"Vocabulary of {vocabulary.size:,} terms (the analysis store's slices): ready for "
        f"substring look-ups in {build * 1000:.0f} ms (first look-up); "
        f"4-letter infix lookup median {_ms(scan)[0]:.2f} ms / p95 {_ms(scan)[1]:.2f} ms."
    ]


def bench_size(
    work_packages: int, queries: int, limit: int, seed: int, tenants: int = 0, agreement: int = 0
) -> list[str]:
    rng = random.Random(seed)
    corpus = generate_corpus(CorpusSize.proportional(work_packages), seed=seed)
    records = corpus_records(corpus)
    del corpus
    text_bytes = sum(
        len(v.text.encode()) for r in records for vs in r.document.fields.values() for v in vs
    )
    lines = []
    with tempfile.TemporaryDirectory() as tmp:
        index = TenantIndex.create(Path(tmp) / "index")
        started = time.perf_counter()
        for chunk in range(0, len(records), 5000):
            index.upsert(records[chunk : chunk + 5000])
        index.commit()
        build = time.perf_counter() - started
        stats = index.stats()
        started = time.perf_counter()
        vocabulary = index.vocabulary()
        vocabulary_build = time.perf_counter() - started
        lines.append(
            f"| {len(records):,} docs | indexing {len(records) / build:,.0f} docs/s "
            f"({build:.1f} s) | {stats.bytes_on_disk / 1e6:.1f} MB on disk, "
            f"{stats.bytes_on_disk / text_bytes:.2f} bytes/text byte | vocabulary "
            f"{vocabulary.size:,} terms, loaded in {vocabulary_build * 1000:.0f} ms |"
        )
        lines.append("")
        lines.append(
            "| class | median ms | p95 ms | median CPU ms | p95 CPU ms | mean candidates "
            "| truncated |"
        )
        lines.append("|---|---|---|---|---|---|---|")
        for name, make in query_classes(rng, records).items():
            batch = [make() for _ in range(queries)]
            timings, cpu, sizes, cut = [], [], [], 0
            for query in batch:
                started, started_cpu = time.perf_counter(), time.process_time()
                found = index.candidates(query, "work_package", limit=limit)
                timings.append(time.perf_counter() - started)
                cpu.append(time.process_time() - started_cpu)
                sizes.append(len(found))
                cut += found.truncated
            median, p95 = _ms(timings)
            cpu_median, cpu_p95 = _ms(cpu)
            lines.append(
                f"| {name} | {median:.2f} | {p95:.2f} | {cpu_median:.2f} | {cpu_p95:.2f} | "
                f"{statistics.mean(sizes):.0f} | {cut}/{queries} |"
            )
        if agreement:
            lines.extend(["", *bench_agreement(index, records, rng, agreement)])
        index.close()
        if tenants:
            lines.extend(["", bench_memory(Path(tmp) / "index", tenants, 100, limit)])
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="*", default=[10_000, 100_000])
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--limit", type=int, default=500)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--tenants", type=int, default=0, help="memory: N copies, 1st size")
    parser.add_argument(
        "--agreement", type=int, default=0, help="oracle top-10 agreement: N queries, 1st size"
    )
    parser.add_argument("--vocabulary", type=int, default=0, help="infix bench: N terms")
    parser.add_argument("--memory-child", type=Path, nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.memory_child:
        memory_child(args.memory_child, args.queries, args.limit)
        return 0
    print("## Index retrieval\n")
    print(
        f"`python scripts/bench_retrieval.py {' '.join(sys.argv[1:])}` "
        f"(candidates() over work packages, limit {args.limit}, {args.queries} queries per "
        "class, generated sandbox corpus, work packages + wiki pages + meetings)\n"
    )
    for position, size in enumerate(args.sizes):
        print(f"### {size:,} work packages\n")
        first = position == 0
        lines = bench_size(
            size,
            args.queries,
            args.limit,
            args.seed,
            tenants=args.tenants if first else 0,
            agreement=args.agreement if first else 0,
        )
        print("\n".join(lines))
        print()
    if args.vocabulary:
        print("### Infix lookups at a large vocabulary\n")
        print("\n".join(bench_vocabulary(args.vocabulary, 200, args.seed)))
        print()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    load = os.getloadavg()[0]
    print(
        f"Peak RSS of the benchmark process: {peak:.0f} MB; load average at the end "
        f"{load:.2f} on {os.cpu_count()} cores\n"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
