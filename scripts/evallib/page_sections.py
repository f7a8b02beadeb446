"""The generated sections of docs/BENCHMARKS.md, each built from one JSON result."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from evallib.markdown import block, cell, code, ms, table
from evallib.querygen import CATEGORIES

Result = Mapping[str, Any]
PATH_NAMES = {"index": "index", "live": "live", "substring": "substring (`~`)"}


def recall_section(recall: Result, plot: str | None) -> str:
    paths = recall["paths"]
    summary = recall["summary"]
    corpus = recall["corpus"]
    counts = ", ".join(f"{n:,} {k.replace('_', ' ')}s" for k, n in corpus["counts"].items())
    parts = [
        "## Recall (known-item queries)",
        f"Command: {code(recall['command'])} — corpus `{corpus['file']}` ({counts}), "
        f"queries `{recall['queries_file']}` (replay with `--queries`).",
    ]
    if plot:
        parts.append(f"![recall@10 per category and path]({plot})")
    header = ["category", *(f"{PATH_NAMES[p]} R@1 / R@10 / MRR" for p in paths)]
    rows = []
    for category in (*CATEGORIES, "overall"):
        row: list[str] = [f"**{category}**" if category == "overall" else category]
        for path in paths:
            score = summary[path].get(category)
            if score is None:
                row.append("–")
            elif category == "no_hit":
                row.append(
                    f"precision {score['no_hit_precision']:.2f} (empty {score['strict_empty']:.2f})"
                )
            else:
                text = (
                    f"{score['recall_at_1']:.2f} / {score['recall_at_10']:.2f} / {score['mrr']:.2f}"
                )
                success = score.get("relaxation_success")
                if category == "needs_relaxation" and path != "substring" and success is not None:
                    text += f" (relaxed & found {success:.2f})"
                row.append(text)
        rows.append(row)
    queries = summary[paths[0]]["overall"]["queries"]
    parts.append(table(header, rows, "l" + "r" * len(paths)))
    parts.append(
        f"{queries} known-item queries plus the no-hit ones. *No-hit precision*: share of "
        "no-hit queries answered with nothing or only with results flagged as relaxed "
        "(*empty*: with nothing at all). *relaxed & found*: the expected record came back "
        "in the top 10 of an answer flagged `wildcard_fallback`."
    )
    live = recall.get("live_run") or {}
    rows = [
        [PATH_NAMES[path], figures["queries"], ms(figures["p50_ms"]), ms(figures["p95_ms"]),
         cell(figures["requests_mean"]), cell(figures["requests_max"])]
        for path, figures in recall.get("cost", {}).items()
    ]  # fmt: skip
    if rows:
        parts.append(table(["path", "queries", "p50", "p95", "API requests (mean)", "(max)"], rows))
        note = (
            f"Cost in this run (the sandbox adds {recall.get('latency_ms', 0):g} ms to every "
            "API request). The substring row counts the one list request OpenProject's `~` "
            "filter needs; the baseline itself ran in process."
        )
        if live.get("queries") and live["queries"] < queries_total(summary):
            note += (
                f" The live path answered {live['queries']} of the queries (the first ones of "
                "each category), to keep the run short; its recall figures are over those."
            )
        parts.append(note)
    parts.append(weakest_section(recall))
    return "\n\n".join(parts)


def queries_total(summary: Mapping[str, Any]) -> int:
    """Known-item plus no-hit queries of the index path."""
    index = summary.get("index", {})
    return int(index.get("overall", {}).get("queries", 0)) + int(
        index.get("no_hit", {}).get("queries", 0)
    )


def weakest_section(recall: Result) -> str:
    parts = ["### Where the index path is weakest"]
    for entry in recall.get("weakest", []):
        score = entry["score"]
        parts.append(
            f"**{entry['category']}** — {cell(score)} "
            f"({'no-hit precision' if entry['category'] == 'no_hit' else 'recall@10'}), "
            f"MRR {cell(entry['mrr'])}"
        )
        rows = []
        for example in entry["examples"]:
            if "reason" in example:
                instead = (
                    "; ".join(
                        f"{r['id']} {r['title']!r} ({r['score']:.2f})"
                        for r in example["ranked_instead"]
                    )
                    or "nothing"
                )
                rows.append(
                    [
                        code(example["query"]),
                        example["expected_id"],
                        example.get("expected_title", ""),
                        instead,
                        example["reason"],
                    ]
                )
            else:
                rows.append(
                    [
                        code(example["query"]),
                        example["expected_id"],
                        example.get("expected_title", ""),
                        _first(example),
                        f"found at rank {example['rank']}",
                    ]
                )
        if rows:
            parts.append(
                table(
                    ["query", "expected", "expected title", "ranked instead", "why"], rows, "lrlll"
                )
            )
        else:
            parts.append("No miss and no lower rank in this category.")
    misses = recall.get("index_misses", [])
    wrong = recall.get("index_no_hit_errors", [])
    parts.append(
        f"All index-path misses: {len(misses)} known-item queries not in the top 10, "
        f"{len(wrong)} no-hit queries answered with unflagged results; each is listed with "
        "its diagnosis in `bench-results/recall.json` (`index_misses`)."
    )
    return "\n\n".join(parts)


def _first(example: Mapping[str, Any]) -> str:
    first = example.get("first")
    if not first:
        return ""
    return f"{first['id']} {first['title']!r} ({first['score']:.2f}) first"


def oracle_section(recall: Result) -> str:
    oracle = recall.get("oracle")
    if not oracle:
        return ""
    parts = [
        "## Oracle agreement",
        f"Command: {code(recall['command'])}. Every query's index-path top 10 (the query as "
        "written, relaxation off) against an exhaustive re-rank of every indexed record of "
        "the kind with the same scorer (`opindex.search.rank_documents`), skipping only "
        "records without a single token that scores for any query term.",
        f"Identical top 10 (same records, same order): **{oracle['identical_top10']} of "
        f"{oracle['queries']}** ({oracle['agreement']:.1%}); same set: "
        f"{oracle['same_set_top10']}.",
    ]
    rows = [
        [
            code(d["query"]),
            d["kind"],
            " ".join(map(str, d["index"])),
            " ".join(map(str, d["oracle"])),
        ]
        for d in oracle["disagreements"][:10]
    ]
    if rows:
        parts.append(table(["query", "kind", "index top 10", "oracle top 10"], rows, "llll"))
    return "\n\n".join(parts)


def merged_cost(cost: Result | None, recall: Result | None) -> dict[str, Any] | None:
    """The sizes measured by eval_cost plus the one of the recall run (same figures, same
    way: both paths query by query), smallest first; the profile of the largest."""
    rows: list[dict[str, Any]] = []
    if cost:
        rows += [{**row, "command": cost["command"]} for row in cost["sizes"]]
    recall_row = recall.get("cost_row") if recall else None
    if recall and recall_row:
        rows = [r for r in rows if r["work_packages"] != recall_row["work_packages"]]
        rows.append({**recall_row, "command": recall["command"]})
    if not rows:
        return None
    rows.sort(key=lambda r: int(r["work_packages"]))
    largest = rows[-1]
    source = recall if largest.get("source") == "eval_recall" else cost
    return {
        "sizes": rows,
        "latency_ms": (cost or recall or {}).get("latency_ms", 0.0),
        "profile": source.get("profile") if source else None,
    }


def cost_section(cost: Result, plot: str | None) -> str:
    commands = list(dict.fromkeys(row["command"] for row in cost["sizes"]))
    parts = [
        "## Cost per search: index path vs live path",
        "Commands: " + "; ".join(code(c) for c in commands) + ". For each size the same "
        "mixed known-item queries go to the index path and then to the live path, query by "
        "query, through the service in process (after a warm-up of 5 queries); the sandbox "
        f"adds {cost['latency_ms']:g} ms to every API request. The recall run contributes "
        "its size with its whole query set.",
    ]
    if plot:
        parts.append(f"![latency against corpus size]({plot})")
    rows = []
    for row in cost["sizes"]:
        index, live = row["index"], row["live"]
        rows.append(
            [
                row["label"],
                f"{sum(row['documents'].values()):,}",
                f"{index['queries']} / {live['queries']}",
                ms(index["p50_ms"]),
                ms(index["p95_ms"]),
                index["requests_total"],
                ms(live["p50_ms"]),
                ms(live["p95_ms"]),
                f"{cell(live['requests_mean'])} / {live['requests_max']}",
                f"{row['live_over_index_p50']:.0f}×" if row["live_over_index_p50"] else "–",
            ]
        )
    parts.append(
        table(
            [
                "work packages",
                "documents",
                "queries (index / live)",
                "index p50",
                "index p95",
                "index API requests",
                "live p50",
                "live p95",
                "live requests (mean / max)",
                "live/index p50",
            ],
            rows,
        )
    )
    big = cost["sizes"][-1]
    slow = [
        [f"{s['ms']:.0f} ms", s["kind"], code(s["query"]), "yes" if s.get("relaxed") else ""]
        for s in big["slowest_index_queries"]
    ]
    parts.append(f"Slowest index-path queries at {big['label']}:")
    parts.append(table(["time", "kind", "query", "relaxed"], slow, "rlll"))
    profile = cost.get("profile")
    if profile:
        lines = [
            f"{r['own_s']:7.3f} s own {r['cum_s']:7.3f} s cum {r['calls']:>9} calls  "
            f"{r['function']}"
            for r in profile["by_own_time"]
        ]
        parts.append(
            f"Where the time goes: cProfile of the index path (candidates, re-rank, "
            f"relaxation; no envelope) over those {len(profile['queries'])} queries at "
            f"{profile['size']}, {profile['total_s']:.2f} s in all, functions by own time:"
        )
        parts.append(block("\n".join(lines)))
    return "\n\n".join(parts)


def mcp_section(mcp: Result) -> str:
    rows = []
    for row in mcp["sizes"]:
        rows.append(
            [
                row["label"],
                row["queries"],
                ms(row["in_process"]["p50_ms"]),
                ms(row["in_process"]["p95_ms"]),
                ms(row["mcp_stdio"]["p50_ms"]),
                ms(row["mcp_stdio"]["p95_ms"]),
                ms(row["mcp_overhead"]["p50_ms"]),
                f"{row['identical_answers']}/{row['queries']}",
                row["api_requests"],
            ]
        )
    return "\n\n".join(
        [
            "## Index path through an MCP stdio client",
            f"Command: {code(mcp['command'])}. `mcp.Client` launches `python -m opindex serve "
            "--no-sync` over stdio and calls the search tools (`source: index`); the same "
            "queries run through the service in process in the same loop.",
            table(
                [
                    "work packages",
                    "queries",
                    "in process p50",
                    "in process p95",
                    "MCP p50",
                    "MCP p95",
                    "MCP overhead p50",
                    "same answers",
                    "API requests",
                ],
                rows,
            ),
        ]
    )


def memory_section(memory: Result) -> str:
    size = memory["index"]
    searches = memory["searches"]
    return "\n\n".join(
        [
            "## Memory and index size",
            f"Command: {code(memory['command'])}. One synced tenant is copied into "
            f"{memory['tenants']} tenants (own credential, own index files) of a fresh data "
            "directory; `opindex serve --transport http --no-sync` serves them and MCP "
            "streamable-HTTP clients, one per tenant credential, all send their share of the "
            "searches at the same time.",
            table(
                [
                    "tenants × documents",
                    "searches",
                    "RSS at start",
                    "peak RSS (VmHWM)",
                    "search p50 / p95 over MCP HTTP (tenants in parallel)",
                    "API requests",
                ],
                [
                    [
                        f"{memory['tenants']} × {memory['documents_per_tenant']:,}",
                        searches["searches"],
                        f"{memory['rss_start_mib']:.0f} MiB",
                        f"{memory['peak_rss_mib']:.0f} MiB",
                        f"{ms(searches['p50_ms'])} / {ms(searches['p95_ms'])}",
                        memory["api_requests"],
                    ]
                ],
            ),
            table(
                [
                    "index bytes on disk",
                    "indexed text (UTF-8)",
                    "bytes per text byte",
                    "documents",
                    "segments",
                ],
                [
                    [
                        f"{size['bytes_on_disk']:,}",
                        f"{size['text_bytes']:,}",
                        f"{size['bytes_per_text_byte']:.2f}",
                        f"{size['documents']:,}",
                        size["segments"],
                    ]
                ],
            ),
            *_memory_breakdown(searches.get("memory_kib")),
        ]
    )


def _memory_breakdown(memory: Mapping[str, Mapping[str, int]] | None) -> list[str]:
    """Where the resident set grows: after start-up, once every tenant's index is open,
    after all searches; heap (RssAnon) vs mapped files (RssFile)."""
    if not memory:
        return []
    labels = {
        "start": "after start-up",
        "every_tenant_opened": "after one search per tenant",
        "end": "after all searches",
    }
    rows = [
        [labels.get(name, name), f"{m['VmRSS'] / 1024:.0f} MiB",
         f"{m.get('RssAnon', 0) / 1024:.0f} MiB", f"{m.get('RssFile', 0) / 1024:.0f} MiB",
         f"{m['VmHWM'] / 1024:.0f} MiB"]
        for name, m in memory.items()
    ]  # fmt: skip
    return [
        "Where the memory goes (RssAnon: heap — Python objects, caches, Tantivy's own "
        "allocations; RssFile: mapped files — index segments and shared libraries):",
        table(
            ["when", "resident", "heap (RssAnon)", "mapped files (RssFile)", "peak so far"], rows
        ),
    ]
