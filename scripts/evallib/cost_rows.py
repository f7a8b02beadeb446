"""One corpus size's cost figures: latency and API requests per search on both paths."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from evallib.corpora import size_label
from evallib.metrics import latency_summary
from evallib.querygen import KnownItemQuery
from evallib.search_paths import Answer
from opindex.search.document import KINDS, Kind

Answered = Sequence[tuple[KnownItemQuery, Answer]]
SLOWEST_SHOWN = 10


def path_figures(answers: Sequence[Answer]) -> dict[str, Any]:
    """p50/p95/mean latency, errors and API requests of one path's answers."""
    counted = [a.requests for a in answers if a.requests is not None]
    return {
        **latency_summary([a.seconds for a in answers]),
        "queries": len(answers),
        "errors": sum(1 for a in answers if a.error is not None),
        "requests_total": sum(counted) if counted else None,
        "requests_mean": round(sum(counted) / len(counted), 2) if counted else None,
        "requests_max": max(counted) if counted else None,
    }


def cost_row(
    work_packages: int,
    documents: Mapping[Kind, int],
    corpus: str,
    index_answers: Answered,
    live_answers: Answered,
    *,
    source: str,
) -> dict[str, Any]:
    """The figures of one size: both paths, their ratio, per kind, the slowest queries."""
    index = path_figures([a for _, a in index_answers])
    live = path_figures([a for _, a in live_answers])
    by_kind = {
        kind: {
            "index": latency_summary([a.seconds for q, a in index_answers if q.kind == kind]),
            "live": latency_summary([a.seconds for q, a in live_answers if q.kind == kind]),
        }
        for kind in KINDS
    }
    ratio = live["p50_ms"] / index["p50_ms"] if live["queries"] and index["p50_ms"] else None
    slowest = sorted(index_answers, key=lambda qa: -qa[1].seconds)[:SLOWEST_SHOWN]
    return {
        "work_packages": work_packages,
        "label": size_label(work_packages),
        "documents": dict(documents),
        "corpus": corpus,
        "source": source,
        "index": index,
        "live": live,
        "live_over_index_p50": ratio,
        "by_kind": by_kind,
        "slowest_index_queries": [
            {
                "qid": q.qid,
                "kind": q.kind,
                "query": q.query,
                "ms": a.seconds * 1000,
                "relaxed": a.relaxed,
            }
            for q, a in slowest
        ],
    }
