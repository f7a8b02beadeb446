"""The benchmark page's goals for the index path at scale and for the command line's start."""

from __future__ import annotations

from typing import Any

from evallib.page_targets import scale_rows


def search_result(p95_by_size: dict[int, float], p99_factor: float = 1.5) -> dict[str, Any]:
    return {
        "vocabulary": "zipf",
        "targets_p95_ms": {"100000": 30.0, "1000000": 60.0},
        "sizes": {
            str(size): {"index_wall": {"p95_ms": p95, "p99_ms": p95 * p99_factor}}
            for size, p95 in p95_by_size.items()
        },
    }


def cold_result(help_s: float, search_s: float) -> dict[str, Any]:
    return {
        "runs": 5,
        "documents": 9998,
        "targets_s": {"help": 0.3, "search": 0.5},
        "results": {"help": {"median_wall_s": help_s}, "search": {"median_wall_s": search_s}},
    }


def test_every_size_within_its_goal_is_met() -> None:
    [row] = scale_rows(search_result({1000: 2.0, 100_000: 25.0, 1_000_000: 55.0}), None)
    assert row[1] == "p95 ≤ 30 ms at 100k, ≤ 60 ms at 1M; p99 ≤ 2 × p95"
    assert "1M: p95 55 ms, p99 82 ms" in row[2]
    assert row[3] == "**met**"


def test_a_size_over_its_goal_or_a_long_tail_is_missed() -> None:
    [slow] = scale_rows(search_result({100_000: 31.0, 1_000_000: 20.0}), None)
    assert slow[3] == "**missed**"
    [tail] = scale_rows(search_result({100_000: 20.0, 1_000_000: 20.0}, p99_factor=2.5), None)
    assert tail[3] == "**missed**"


def test_sizes_not_run_are_named_not_passed() -> None:
    [row] = scale_rows(search_result({1000: 5.0, 10_000: 9.0}), None)
    assert row[3] == "not measured; 100k, 1M not measured (`scripts/bench_all --full --1m`)"
    [row] = scale_rows(search_result({10_000: 900.0, 100_000: 20.0}), None)
    assert row[3] == "met; 1M not measured (`scripts/bench_all --full --1m`)"
    [row] = scale_rows(search_result({10_000: 9.0, 100_000: 40.0}), None)
    assert row[3].startswith("**missed**; 1M not measured")


def test_cold_start_row_compares_both_medians() -> None:
    [met] = scale_rows(None, cold_result(0.03, 0.45))
    assert met[2] == "0.03 s; 0.45 s at 9,998 documents" and met[3] == "**met**"
    [missed] = scale_rows(None, cold_result(0.03, 0.8))
    assert missed[3] == "**missed**"
    assert scale_rows(None, None) == []
