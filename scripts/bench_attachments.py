"""Benchmark the coverage of every kind: what attached files cost a sync, and a global search.

python scripts/bench_attachments.py --work-packages 2000 --queries 200

One generated corpus with news, documents, versions and attached files
(``with_publications``: about one work package or wiki page in ten has a file, mostly small
PDFs and DOCX), served by the sandbox and synced in process as the admin account, twice:
with ``read_attachments = false`` and with it on (the default), so the difference is what
attached files cost — requests (attachment lists and downloads), bytes downloaded,
extraction time per MB per format (from the state's extraction records). With files on,
incremental runs of the unchanged tenant follow until no file is left deferred by the
per-run budget (each run's requests). Then search latency on the index path: every query of
a sample asked of each kind alone and of every kind at once (``search_everything``),
medians and p95 in one run. Prints Markdown tables and writes bench-results/attachments.json.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import re
import statistics
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from evallib.results_io import RESULTS
from evallib.sandbox_proc import SandboxProcess, sandbox_process
from opindex.config import Config, Secret, TenantConfig
from opindex.envelope import SearchRequest
from opindex.sandbox.corpus_gen import (
    ADMIN_KEY,
    CorpusSize,
    generate_corpus,
    with_publications,
    write_corpus,
)
from opindex.service import KINDS, Service, sync_tenant
from opindex.state import StateStore

TENANT = "bench"
ATTACHMENT_PATH = re.compile(r"^/api/v3/(\w+)/\d+/attachments$")
CONTENT_PATH = re.compile(r"^/api/v3/attachments/\d+/content$")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work-packages", type=int, default=2000, metavar="N")
    parser.add_argument("--queries", type=int, default=200, metavar="N")
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--out", type=Path, default=RESULTS / "attachments.json")
    return parser.parse_args(argv)


def _tenant(base_url: str, files: bool = True) -> TenantConfig:
    return TenantConfig(
        name=TENANT, base_url=base_url, api_key=Secret(ADMIN_KEY), read_attachments=files
    )


def _sync(sandbox: SandboxProcess, data_dir: Path, files: bool) -> dict[str, Any]:
    """One sync of the sandbox's corpus into *data_dir*: seconds, requests by family."""
    sandbox.reset_stats()
    started = time.perf_counter()
    report = asyncio.run(sync_tenant(_tenant(sandbox.base_url, files), data_dir))
    seconds = time.perf_counter() - started
    by_path: dict[str, int] = sandbox.stats()["by_path"]
    families: Counter[str] = Counter()
    for path, count in by_path.items():
        if CONTENT_PATH.match(path):
            families["file downloads"] += count
        elif ATTACHMENT_PATH.match(path):
            families["attachment lists"] += count
        else:
            families["other"] += count
    return {
        "kind": report.kind,
        "seconds": round(seconds, 2),
        "requests": sum(by_path.values()),
        "families": dict(families),
        "documents": dict(report.documents),
    }


def _words(corpus: dict[str, Any], count: int, seed: int) -> list[str]:
    """Query words drawn from every kind's text (two words each, some with a typo)."""
    rng = random.Random(seed)
    texts = [wp["subject"] for wp in corpus["work_packages"]]
    texts += [item["title"] for key in ("news", "documents") for item in corpus.get(key) or []]
    texts += [item.get("generate", {}).get("text", "") for item in corpus.get("attachments") or []]
    words = sorted({w.lower() for text in texts for w in re.findall(r"[^\W\d_]{5,}", text)})
    queries = []
    for _ in range(count):
        first, second = rng.sample(words, 2)
        if rng.random() < 0.3:
            cut = rng.randrange(1, len(first) - 1)
            first = first[:cut] + first[cut + 1 :]
        queries.append(f"{first} {second}")
    return queries


async def _latencies(config: Config, queries: list[str]) -> dict[str, dict[str, float]]:
    """Median and p95 milliseconds per kind alone and for every kind at once."""
    timings: dict[str, list[float]] = {kind: [] for kind in KINDS}
    timings["every kind"] = []
    async with Service.from_config(config) as service:
        for query in queries:
            for kind in KINDS:
                request = SearchRequest(kind=kind, query=query, source="index", limit=10)
                started = time.perf_counter()
                await service.search(request)
                timings[kind].append((time.perf_counter() - started) * 1000)
            request = SearchRequest(kind="work_package", query=query, source="index", limit=10)
            started = time.perf_counter()
            await service.search_everything(request)
            timings["every kind"].append((time.perf_counter() - started) * 1000)
    return {name: _summary(values) for name, values in timings.items()}


def _summary(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {
        "p50": round(statistics.median(ordered), 1),
        "p95": round(ordered[int(0.95 * (len(ordered) - 1))], 1),
    }


def _deferred(data_dir: Path) -> int:
    with StateStore.for_tenant(data_dir, TENANT) as state:
        return len(state.deferred_extractions())


def _extraction(data_dir: Path) -> dict[str, Any]:
    with StateStore.for_tenant(data_dir, TENANT) as state:
        summary = state.extraction_summary()
    formats: dict[str, Any] = {}
    for name, totals in summary["by_format"].items():  # type: ignore[attr-defined]
        megabytes = totals["bytes"] / 1e6
        formats[name] = {
            "files": totals["files"],
            "mb": round(megabytes, 2),
            "seconds": round(totals["seconds"], 3),
            "seconds_per_mb": round(totals["seconds"] / megabytes, 3) if megabytes else None,
        }
    return {"by_outcome": summary["by_outcome"], "by_format": formats}


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    size = with_publications(CorpusSize.proportional(args.work_packages))
    corpus = generate_corpus(size, seed=args.seed)
    files = len(corpus["attachments"])
    results: dict[str, Any] = {"work_packages": args.work_packages, "files": files}
    with tempfile.TemporaryDirectory(prefix="opindex-bench-attachments-") as scratch:
        root = Path(scratch)
        path = root / "corpus.json"
        write_corpus(corpus, path)
        with sandbox_process(path) as sandbox:
            for name, read in (("files off", False), ("files on", True)):
                data_dir = root / name.replace(" ", "-")
                entry: dict[str, Any] = {"full": _sync(sandbox, data_dir, read)}
                entry["deferred_after_full"] = _deferred(data_dir) if read else 0
                runs = [_sync(sandbox, data_dir, read)]
                while read and _deferred(data_dir) and len(runs) < 20:
                    runs.append(_sync(sandbox, data_dir, read))
                entry["incremental"] = runs
                if read:
                    entry["extraction"] = _extraction(data_dir)
                    config = Config(data_dir=data_dir, tenants=(_tenant(sandbox.base_url),))
                    entry["latency_ms"] = asyncio.run(
                        _latencies(config, _words(corpus, args.queries, args.seed))
                    )
                results[name] = entry
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2), encoding="utf-8")
    print(_markdown(results))
    return 0


def _markdown(results: dict[str, Any]) -> str:
    off, on = results["files off"], results["files on"]
    families = on["full"]["families"]
    runs = on["incremental"]
    lines = [
        f"Corpus: {results['work_packages']} work packages with news, documents, versions and "
        f"{results['files']} attached files.",
        "",
        "| sync | `read_attachments = false` | `read_attachments = true` |",
        "|---|--:|--:|",
        f"| full sync, seconds | {off['full']['seconds']} | {on['full']['seconds']} |",
        f"| full sync, requests | {off['full']['requests']} | {on['full']['requests']} "
        f"({families.get('attachment lists', 0)} attachment lists, "
        f"{families.get('file downloads', 0)} downloads) |",
        f"| files deferred by the run budget | – | {on['deferred_after_full']} |",
        f"| next incremental runs, requests | {off['incremental'][0]['requests']} | "
        + ", ".join(str(run["requests"]) for run in runs)
        + " |",
        "",
        "| format | files | MB | extraction s | s per MB |",
        "|---|--:|--:|--:|--:|",
    ]
    for name, row in sorted(on["extraction"]["by_format"].items()):
        cells = (name, row["files"], row["mb"], row["seconds"], row["seconds_per_mb"])
        lines.append("| " + " | ".join(str(cell) for cell in cells) + " |")
    lines += ["", "| search (index path) | p50 ms | p95 ms |", "|---|--:|--:|"]
    for name, row in on["latency_ms"].items():
        lines.append(f"| {name} | {row['p50']} | {row['p95']} |")
    return "\n".join(lines)


if __name__ == "__main__":
    raise SystemExit(main())
