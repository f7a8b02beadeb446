"""The benchmark page's plots (matplotlib, a benchmark extra: ``pip install -e '.[bench]'``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from matplotlib.ticker import FuncFormatter, LogLocator

PATH_COLOURS = {"index": "#1f6fb4", "live": "#e07b22", "substring": "#8c8c8c"}
PATH_LABELS = {
    "index": "index path",
    "live": "live path (25-record enrichment window)",
    "substring": "exact substring on titles (OpenProject `~`)",
}


def plot_recall(
    summary: Mapping[str, Mapping[str, Any]],
    categories: Sequence[str],
    out: Path,
    *,
    title: str,
) -> None:
    """Grouped bars: recall@10 per category, one bar per path, values printed on the bars."""
    paths = [p for p in ("index", "live", "substring") if p in summary]
    figure, axes = plt.subplots(figsize=(11, 5.2), dpi=110)
    width = 0.8 / len(paths)
    for offset, path in enumerate(paths):
        values = [summary[path].get(c, {}).get("recall_at_10") or 0.0 for c in categories]
        xs = [i + (offset - (len(paths) - 1) / 2) * width for i in range(len(categories))]
        bars = axes.bar(xs, values, width, label=PATH_LABELS[path], color=PATH_COLOURS[path])
        for bar, value in zip(bars, values, strict=True):
            axes.text(
                bar.get_x() + bar.get_width() / 2,
                value + 0.01,
                f"{value:.2f}".lstrip("0") if value < 1 else "1",
                ha="center",
                va="bottom",
                fontsize=7.5,
            )
    axes.set_xticks(range(len(categories)))
    axes.set_xticklabels([c.replace("_", "\n") for c in categories], fontsize=9)
    axes.set_ylim(0, 1.12)
    axes.set_ylabel("recall@10")
    axes.set_title(title, fontsize=11)
    axes.axhline(0.97, color="#1f6fb4", linestyle=":", linewidth=1)
    axes.text(
        len(categories) - 0.5,
        0.96,
        "target 0.97",
        color="#1f6fb4",
        fontsize=8,
        ha="right",
        va="top",
    )
    axes.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=3, fontsize=9, frameon=False)
    axes.grid(axis="y", alpha=0.3)
    figure.tight_layout()
    figure.savefig(out)
    plt.close(figure)


def plot_latency(sizes: Sequence[Mapping[str, Any]], out: Path, *, title: str) -> None:
    """Latency (p50 solid, p95 dashed) against corpus size for both paths, log-log."""
    figure, axes = plt.subplots(figsize=(8.5, 5), dpi=110)
    documents = [sum(row["documents"].values()) for row in sizes]
    for path in ("index", "live"):
        for stat, style in (("p50_ms", "-"), ("p95_ms", "--")):
            values = [row[path][stat] for row in sizes]
            points = [(d, v) for d, v in zip(documents, values, strict=True) if v is not None]
            if not points:
                continue
            axes.plot(
                [p[0] for p in points],
                [p[1] for p in points],
                style,
                marker="o",
                color=PATH_COLOURS[path],
                label=f"{path} path {stat.split('_')[0]}",
            )
            if stat == "p50_ms":
                for x, y in points:
                    axes.annotate(
                        f"{y:.0f} ms",
                        (x, y),
                        textcoords="offset points",
                        xytext=(6, -12),
                        fontsize=8,
                        color=PATH_COLOURS[path],
                    )
    axes.set_xscale("log")
    axes.set_yscale("log")
    axes.set_xlim(min(documents) / 1.4, max(documents) * 1.6)
    axes.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v / 1000:g}k"))
    axes.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    axes.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    axes.set_xlabel("documents in the tenant (work packages + wiki pages + meetings)")
    axes.set_ylabel("latency per search (ms, log scale)")
    axes.set_title(title, fontsize=11)
    axes.grid(which="both", alpha=0.3)
    axes.legend(fontsize=9)
    figure.tight_layout()
    figure.savefig(out)
    plt.close(figure)


def plot_growth(
    rows: Sequence[Mapping[str, Any]],
    targets: Mapping[int, float],
    out: Path,
    *,
    title: str,
) -> None:
    """Index-path p50/p95/p99 against documents (log-log), with the p95 targets marked.

    *rows*: one per size with ``documents``, ``index_wall`` (``p50_ms``, ``p95_ms``,
    ``p99_ms``) and ``index_cpu`` (``p95_ms``: drawn too, as on a busy machine the wall
    time includes waiting for a core); *targets*: documents -> p95 goal in ms.
    """
    figure, axes = plt.subplots(figsize=(8.5, 5), dpi=110)
    documents = [row["documents"] for row in rows]
    for stat, style in (("p50_ms", "-"), ("p95_ms", "--"), ("p99_ms", ":")):
        values = [row["index_wall"][stat] for row in rows]
        axes.plot(documents, values, style, marker="o", color=PATH_COLOURS["index"], label=stat[:3])
        if stat == "p95_ms":
            for x, y in zip(documents, values, strict=True):
                axes.annotate(
                    f"{y:.0f} ms" if y >= 10 else f"{y:.1f} ms",
                    (x, y),
                    textcoords="offset points",
                    xytext=(6, 6),
                    fontsize=8,
                )
    cpu = [row["index_cpu"]["p95_ms"] for row in rows]
    axes.plot(documents, cpu, "--", marker=".", color="#8c8c8c", label="p95 of CPU time")
    goals = sorted(targets.items())
    axes.plot(
        [g[0] for g in goals], [g[1] for g in goals], "x", color="#c0392b", markersize=9,
        label="p95 target",
    )  # fmt: skip
    axes.set_xscale("log")
    axes.set_yscale("log")
    axes.set_xlim(min([*documents, *targets]) / 1.4, max([*documents, *targets]) * 1.6)
    axes.xaxis.set_major_formatter(
        FuncFormatter(lambda v, _: f"{v / 1e6:g}M" if v >= 1e6 else f"{v / 1000:g}k")
    )
    axes.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    axes.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    axes.set_xlabel("documents in the tenant (work packages + wiki pages + meetings)")
    axes.set_ylabel("index-path latency per search (ms, log scale)")
    axes.set_title(title, fontsize=11)
    axes.grid(which="both", alpha=0.3)
    axes.legend(fontsize=9)
    figure.tight_layout()
    figure.savefig(out)
    plt.close(figure)
