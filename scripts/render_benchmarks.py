"""Regenerate docs/BENCHMARKS.md and its plots from the results in bench-results/.

python scripts/render_benchmarks.py

Reads the JSON results of eval_recall, eval_cost, bench_mcp and bench_memory, and the
captured output of the other benchmark scripts that scripts/bench_all ran
(bench-results/captured/<name>.txt and .json), and rewrites the whole page. A section
whose result is missing is left out. Hand-written notes under the captured sections
(a "### Notes" part) are carried over from the current page, and sections of the current
page that no benchmark here produces are kept as they are.
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evallib.markdown import block, code, table
from evallib.page_method import METHOD
from evallib.page_sections import (
    cost_section,
    mcp_section,
    memory_section,
    merged_cost,
    oracle_section,
    recall_section,
)
from evallib.page_targets import scale_rows, target_rows
from evallib.plots import plot_latency, plot_recall
from evallib.querygen import CATEGORIES
from evallib.results_io import RESULTS, read_result

PAGE = Path("docs/BENCHMARKS.md")
RECALL_PLOT = "bench-recall.png"
LATENCY_PLOT = "bench-latency.png"
NOTES_HEADING = "### Notes"
METHOD_HEADING = METHOD.splitlines()[0].removeprefix("## ")
NOTES_CAVEAT = "_Written for an earlier run: figures quoted here may differ from those above._"


@dataclass(frozen=True, slots=True)
class Captured:
    """A section showing the printed output of benchmark runs (one or more) as is."""

    heading: str
    names: tuple[str, ...]


CAPTURED = (
    Captured("Scorer", ("scorer",)),
    Captured("Index retrieval", ("retrieval",)),
    Captured("Sync", ("sync",)),
    Captured("Search", ("search",)),
    Captured("Cold start", ("cold_start",)),
    Captured("Load", ("load", "load_baseline")),
)


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--results", type=Path, default=RESULTS)
    parser.add_argument("--page", type=Path, default=PAGE)
    return parser.parse_args(argv)


def sections_of(page: str) -> dict[str, str]:
    """``{heading: body}`` of every ``## `` section of a Markdown page."""
    found: dict[str, str] = {}
    for chunk in re.split(r"(?m)^## ", page)[1:]:
        heading, _, body = chunk.partition("\n")
        found[heading.strip()] = body
    return found


def carried_notes(old_body: str | None) -> str:
    """The prose of an old section: its Notes part, or its text outside tables and code."""
    if not old_body:
        return ""
    if NOTES_HEADING in old_body:
        text = old_body.split(NOTES_HEADING, 1)[1]
    else:
        text = re.sub(r"(?ms)^```.*?^```\s*$", "", old_body)
    paragraphs = []
    for paragraph in re.split(r"\n\s*\n", text):
        stripped = paragraph.strip()
        if (
            not stripped
            or stripped == NOTES_CAVEAT
            or stripped.startswith(("Command:", "|", "#", "```", "!["))
            or stripped.endswith(":")  # it introduced a table or an output block
        ):
            continue
        paragraphs.append(stripped)
    return "\n\n".join(paragraphs)


def script_summary(command: str) -> str:
    """The first paragraph of the docstring of the script a command runs ("" if none)."""
    script = next((part for part in command.split() if part.endswith(".py")), None)
    if script is None or not Path(script).is_file():
        return ""
    try:
        docstring = ast.get_docstring(ast.parse(Path(script).read_text(encoding="utf-8")))
    except SyntaxError:
        return ""
    paragraph = (docstring or "").split("\n\n")[0]
    return " ".join(paragraph.split())


def captured_output(name: str, heading: str, results: Path) -> list[str]:
    """The command line and printed output of one captured run (nothing if absent)."""
    output = results / "captured" / f"{name}.txt"
    if not output.is_file():
        return []
    meta: dict[str, Any] = {}
    meta_path = output.with_suffix(".json")
    if meta_path.is_file():
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
    text = output.read_text(encoding="utf-8").rstrip().lstrip("\n")
    parts = []
    summary = script_summary(str(meta.get("command", "")))
    if summary:
        parts.append(summary)
    if meta.get("command"):
        line = f"Command: {code(meta['command'])}"
        if meta.get("at"):
            line += f" (run {meta['at']}, commit {meta.get('git', '?')})"
        if meta.get("exit"):
            line += f" — **exited with status {meta['exit']}**; output as printed"
        parts.append(line)
    if re.search(r"(?m)^(#{2,4} |\|)", text):
        text = re.sub(rf"(?m)^## {re.escape(heading)}\s*\n", "", text)
        parts.append(re.sub(r"(?m)^## ", "### ", text))
    else:
        parts.append(block(text) if text else "_no output_")
    return parts


def captured_section(item: Captured, results: Path, old: dict[str, str]) -> str:
    runs = [part for name in item.names for part in captured_output(name, item.heading, results)]
    if not runs:
        return ""
    parts = [f"## {item.heading}", *runs]
    notes = carried_notes(old.get(item.heading))
    if notes:
        parts += [NOTES_HEADING, NOTES_CAVEAT, notes]
    return "\n\n".join(parts)


def runs_table(results: dict[str, dict[str, Any] | None]) -> str:
    # The evaluation scripts keep their context at the top level, the others under "context".
    runs = {name: data.get("context", data) for name, data in results.items() if data}
    rows = [
        [name, run["generated_at"], run["git"], run["cpus"],
         " / ".join(f"{v:g}" for v in run["load_average"])]
        for name, run in runs.items()
    ]  # fmt: skip
    return table(["run", "at (UTC)", "commit", "CPUs", "load average 1/5/15 min"], rows, "lllrl")


def render(results_dir: Path, page_path: Path) -> str:
    names = ("recall", "cost", "mcp", "memory", "search", "cold_start")
    results = {name: read_result(name, results_dir) for name in names}
    recall, mcp, memory = results["recall"], results["mcp"], results["memory"]
    cost = merged_cost(results["cost"], recall)
    docs = page_path.parent
    old = sections_of(page_path.read_text(encoding="utf-8")) if page_path.is_file() else {}
    recall_plot = latency_plot = None
    if recall:
        plot_recall(
            recall["summary"],
            [c for c in CATEGORIES if c != "no_hit"] + ["overall"],
            docs / RECALL_PLOT,
            title=f"Recall@10 of known-item queries per category "
            f"({recall['corpus']['counts']['work_package']:,}-work-package corpus)",
        )
        recall_plot = RECALL_PLOT
    if cost and cost["sizes"]:
        plot_latency(
            cost["sizes"],
            docs / LATENCY_PLOT,
            title=f"Search latency against corpus size (sandbox +{cost['latency_ms']:g} ms "
            "per API request)",
        )
        latency_plot = LATENCY_PLOT
    parts = [
        "# Benchmarks",
        "Generated by `scripts/render_benchmarks.py` from the results of `scripts/bench_all` "
        "(do not edit by hand: run `scripts/bench_all`, or `scripts/bench_all --full` for the "
        "100k figures). How the figures are made and what they mean: *How these figures are "
        "made* at the end.",
        runs_table(results),
        "## Goals",
        table(
            ["figure", "goal", "measured", "verdict"],
            target_rows(recall, cost, mcp, memory)
            + scale_rows(results["search"], results["cold_start"]),
            "llll",
        ),
    ]
    if recall:
        parts += [recall_section(recall, recall_plot), oracle_section(recall)]
    if cost:
        parts.append(cost_section(cost, latency_plot))
    if mcp:
        parts.append(mcp_section(mcp))
    if memory:
        parts.append(memory_section(memory))
    for item in CAPTURED:
        parts.append(captured_section(item, results_dir, old))
    generated = {line.removeprefix("## ") for part in parts for line in part.splitlines()}
    generated.add(METHOD_HEADING)
    for heading, body in old.items():  # sections this script does not make: kept as they are
        if heading not in generated:
            parts.append(f"## {heading}\n{body.rstrip()}")
    parts.append(METHOD)
    return "\n\n".join(p for p in parts if p).rstrip() + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    page = render(args.results, args.page)
    args.page.write_text(page, encoding="utf-8")
    print(f"wrote {args.page} ({len(page.splitlines())} lines)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
