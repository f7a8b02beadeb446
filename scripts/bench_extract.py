"""Benchmark attachment text extraction: N generated documents per format and size.

For each format (PDF, DOCX, XLSX, PPTX, ODT, HTML, CSV, Markdown) and each text size it
generates ``--count`` documents, extracts each with ``extract_text`` in-process (and,
with ``--isolated``, once more through the worker-process ``Extractor``), and reports the
median seconds per MB of input and the median bytes per second. Prints a table to stderr
and the figures as JSON to stdout (also written to bench-results/extract.json).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

from opindex.extract import ExtractionCounts, Extractor, Outcome, extract_text, samples

WORDS = [
    "Müller", "Straße", "Angebot", "Rechnung", "budget", "approval", "meeting", "release",
    "deploy", "customer", "invoice", "security", "migration", "roadmap", "Prüfung", "naïve",
]  # fmt: skip
LINE_WORDS = 10


def _lines(rng: random.Random, chars: int) -> list[str]:
    lines: list[str] = []
    total = 0
    while total < chars:
        line = " ".join(rng.choices(WORDS, k=LINE_WORDS))
        lines.append(line)
        total += len(line) + 1
    return lines


def _chunks(lines: list[str], size: int) -> list[list[str]]:
    return [lines[start : start + size] for start in range(0, len(lines), size)] or [[]]


BUILDERS: dict[str, tuple[str, Callable[[list[str]], bytes]]] = {
    "pdf": ("a.pdf", lambda lines: samples.pdf_document(_chunks(lines, 50))),
    "docx": ("a.docx", samples.docx_document),
    "xlsx": ("a.xlsx", lambda lines: samples.xlsx_document([line.split() for line in lines])),
    "pptx": ("a.pptx", lambda lines: samples.pptx_document(_chunks(lines, 12))),
    "odt": ("a.odt", samples.odt_document),
    "html": ("a.html", lambda lines: samples.html_document("Bericht", lines)),
    "csv": ("a.csv", lambda lines: samples.csv_document([line.split() for line in lines])),
    "markdown": ("a.md", lambda lines: "\n\n".join(lines).encode()),
}


def _measure(
    run: Callable[[bytes, str], tuple[float, int]], documents: list[bytes], file_name: str
) -> dict[str, float]:
    """Medians over ``documents``: seconds, seconds per MB of input, input bytes per second,
    and extracted characters per second (compressed formats have few bytes per char)."""
    timed = [run(data, file_name) for data in documents]
    seconds = [max(s, 1e-9) for s, _ in timed]
    sizes = [len(d) for d in documents]
    return {
        "median_seconds": statistics.median(seconds),
        "median_seconds_per_mb": statistics.median(
            s / (n / 1e6) for s, n in zip(seconds, sizes, strict=True)
        ),
        "median_bytes_per_second": statistics.median(
            n / s for s, n in zip(seconds, sizes, strict=True)
        ),
        "median_chars_per_second": statistics.median(
            c / s for s, (_, c) in zip(seconds, timed, strict=True)
        ),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--count", type=int, default=5, help="documents per format and size")
    parser.add_argument("--sizes", type=int, nargs="+", default=[5_000, 50_000, 500_000])
    parser.add_argument("--isolated", action="store_true", help="also time the worker process")
    parser.add_argument("--json", type=Path, default=Path("bench-results/extract.json"))
    args = parser.parse_args()
    rng = random.Random(11)
    counts = ExtractionCounts()

    def in_process(data: bytes, file_name: str) -> tuple[float, int]:
        started = time.perf_counter()
        result = extract_text(data, file_name=file_name)
        elapsed = time.perf_counter() - started
        counts.add(result)
        if result.outcome is not Outcome.EXTRACTED:
            raise SystemExit(f"{file_name}: {result.outcome}/{result.reason} ({result.detail})")
        return elapsed, len(result.text)

    extractor = Extractor() if args.isolated else None

    def isolated(data: bytes, file_name: str) -> tuple[float, int]:
        assert extractor is not None
        started = time.perf_counter()
        result = extractor.extract_sync(data, file_name=file_name)
        return time.perf_counter() - started, len(result.text)

    rows: list[dict[str, object]] = []
    print(
        f"{'format':<9} {'chars':>8} {'median KB':>10} {'s/MB':>8} {'MB/s':>8} {'Mchar/s':>8}"
        + (f" {'isolated s/MB':>14}" if extractor else ""),
        file=sys.stderr,
    )
    try:
        if extractor is not None:
            extractor.extract_sync(b"warm up", file_name="a.txt")
        for fmt, (file_name, build) in BUILDERS.items():
            for chars in args.sizes:
                documents = [build(_lines(rng, chars)) for _ in range(args.count)]
                row: dict[str, object] = {
                    "format": fmt,
                    "text_chars": chars,
                    "median_bytes": statistics.median(len(d) for d in documents),
                    **_measure(in_process, documents, file_name),
                }
                if extractor is not None:
                    row["isolated"] = _measure(isolated, documents, file_name)
                rows.append(row)
                line = (
                    f"{fmt:<9} {chars:>8} {float(str(row['median_bytes'])) / 1e3:>10.1f}"
                    f" {float(str(row['median_seconds_per_mb'])):>8.3f}"
                    f" {float(str(row['median_bytes_per_second'])) / 1e6:>8.1f}"
                    f" {float(str(row['median_chars_per_second'])) / 1e6:>8.2f}"
                )
                if extractor is not None:
                    iso = row["isolated"]
                    assert isinstance(iso, dict)
                    line += f" {iso['median_seconds_per_mb']:>14.3f}"
                print(line, file=sys.stderr)
    finally:
        if extractor is not None:
            extractor.close()
    report = {
        "count": args.count,
        "cpus": os.cpu_count(),
        "load_average": os.getloadavg()[0],
        "rows": rows,
        "counts": counts.as_dict(),
    }
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(report, indent=2))
    json.dump(report, sys.stdout, indent=2)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
