"""The benchmark page renderer: sections from results, carried notes, kept sections.

It draws its plots with matplotlib (``pip install -e '.[bench]'``); without it this module
is skipped, by name. The page's parts that need no plotting are in test_eval_page_parts.py.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from evallib.metrics import Outcome, summarize

pytest.importorskip(
    "matplotlib", reason="the page renderer plots with matplotlib, the optional bench extra"
)
from render_benchmarks import carried_notes, render, sections_of


def _recall_result() -> dict[str, Any]:
    outcomes = [
        Outcome("title-001", "title", "index", 1, (1, 2)),
        Outcome("title-001", "title", "live", 1, ()),
        Outcome("deep_only-001", "deep_only", "index", 3, (4, 3)),
        Outcome("deep_only-001", "deep_only", "live", 3, ()),
        Outcome("no_hit-001", "no_hit", "index", None, ()),
        Outcome("no_hit-001", "no_hit", "live", None, (5,), relaxed=True),
    ]
    summary = {
        path: {name: score.to_json() for name, score in scores.items()}
        for path, scores in summarize(outcomes).items()
    }
    return {
        "command": ".venv/bin/python scripts/eval_recall.py",
        "generated_at": "2026-01-01T00:00:00+00:00",
        "git": "abc1234",
        "cpus": 2,
        "load_average": [1.0, 1.0, 1.0],
        "corpus": {"file": "c.json", "counts": {"work_package": 3, "wiki_page": 1}},
        "queries_file": "q.json",
        "paths": ["index", "live"],
        "summary": summary,
        "cost": {
            "index": {
                "queries": 3,
                "p50_ms": 3.0,
                "p95_ms": 9.0,
                "requests_mean": 0,
                "requests_max": 0,
            },
            "live": {
                "queries": 2,
                "p50_ms": 900.0,
                "p95_ms": 1500.0,
                "requests_mean": 40.5,
                "requests_max": 61,
            },
        },
        "live_run": {"queries": 2, "requests_mean": 40.5},
        "oracle": {
            "queries": 3,
            "identical_top10": 3,
            "same_set_top10": 3,
            "agreement": 1.0,
            "disagreements": [],
        },
        "weakest": [
            {
                "category": "deep_only",
                "score": 1.0,
                "mrr": 0.5,
                "examples": [
                    {
                        "qid": "deep_only-001",
                        "query": "sorrel kafka",
                        "expected_id": 3,
                        "expected_title": "Fix it",
                        "rank": 2,
                        "first": {"id": 4, "title": "Other", "score": 0.4},
                    }
                ],
            }
        ],
        "index_misses": [],
        "index_no_hit_errors": [],
    }


def test_render_builds_the_page_and_keeps_what_it_does_not_make(tmp_path: Path) -> None:
    results = tmp_path / "results"
    (results / "captured").mkdir(parents=True)
    (results / "recall.json").write_text(json.dumps(_recall_result()))
    (results / "captured" / "scorer.txt").write_text("tokens  query  ms\n1  budgt  20\n")
    (results / "captured" / "scorer.json").write_text(json.dumps({"command": "bench", "exit": 0}))
    page = tmp_path / "docs" / "BENCHMARKS.md"
    page.parent.mkdir()
    page.write_text(
        "# Benchmarks\n\n## Scorer\n\nCommand: `old`\n\n```\nold figures\n```\n\n"
        "The scorer is fast because it memoises.\n\n## Hand-made section\n\nKeep me.\n"
    )
    text = render(results, page)
    sections = sections_of(text)
    assert "Recall (known-item queries)" in sections
    assert "0.50 / 1.00 / 0.75" in sections["Recall (known-item queries)"]  # deep_only index
    assert "`sorrel kafka`" in sections["Recall (known-item queries)"]
    assert (
        "| live | 2 | 900 ms | 1,500 ms | 40.50 | 61 |" in sections["Recall (known-item queries)"]
    )
    assert "answered 2 of the queries" in sections["Recall (known-item queries)"]
    assert "**met**" in sections["Goals"]  # recall@10 1.00 >= 0.97, oracle 100 %
    scorer = sections["Scorer"]
    assert "1  budgt  20" in scorer and "old figures" not in scorer
    assert "The scorer is fast because it memoises." in scorer
    assert sections["Hand-made section"].strip() == "Keep me."
    assert (tmp_path / "docs" / "bench-recall.png").stat().st_size > 10_000
    page.write_text(text)  # rendering again carries the notes once, not twice
    again = render(results, page)
    assert again.count("The scorer is fast because it memoises.") == 1


def test_carried_notes_drop_tables_code_and_commands() -> None:
    body = "\nCommand: `x`\n\n| a | b |\n|--|--|\n| 1 | 2 |\n\n```\nout\n```\n\nProse.\n"
    assert carried_notes(body) == "Prose."
    assert carried_notes(None) == ""
