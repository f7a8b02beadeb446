"""Where the index path spends its time: cProfile over the slowest queries, summarised."""

from __future__ import annotations

import cProfile
import pstats
from collections.abc import Sequence
from typing import Any

from evallib.querygen import KnownItemQuery
from evallib.tenant_data import TenantData
from opindex.envelope import SearchRequest
from opindex.index import TenantIndex
from opindex.search.query import parse_query
from opindex.service.relaxed_search import merge_thesauri
from opindex.service.search_flow import index_answer
from opindex.sync import index_directory


def _name(key: tuple[str, int, str]) -> str:
    filename, line, function = key
    if "/opindex/" in filename:
        filename = "opindex/" + filename.rsplit("/opindex/", 1)[1]
    elif filename.startswith("~") or filename.startswith("<"):
        return function
    else:
        filename = filename.rsplit("/", 1)[-1]
    return f"{filename}:{line} {function}"


def profile_index_path(
    tenant: TenantData,
    queries: Sequence[KnownItemQuery],
    top: int = 12,
    warm: Sequence[KnownItemQuery] = (),
) -> dict[str, Any]:
    """Profile the index path (candidates, re-rank, relaxation) for *queries*.

    Runs ``opindex.service.search_flow.index_answer`` (what the service runs in a worker
    thread) in this thread so cProfile sees it; envelope building is not included. The
    reader is warmed with *warm* (other queries): warming it with the profiled ones would
    leave their words' vocabulary matches cached, and their cost out of the profile.
    """
    if not queries:
        return {"total_s": 0.0, "by_own_time": []}
    profiler = cProfile.Profile()
    thesaurus = merge_thesauri({})
    with TenantIndex(index_directory(tenant.data_dir, tenant.tenant)) as index:
        for query in warm:  # warm the reader first, outside the profile
            request = SearchRequest(kind=query.kind, query=query.query, limit=10, source="index")
            index_answer(index, request, parse_query(query.query), thesaurus)
        for query in queries:
            request = SearchRequest(kind=query.kind, query=query.query, limit=10, source="index")
            profiler.runcall(index_answer, index, request, parse_query(query.query), thesaurus)
    stats = pstats.Stats(profiler)
    rows = []
    for key, (_, calls, own, cumulative, _) in stats.stats.items():  # type: ignore[attr-defined]
        rows.append({"function": _name(key), "calls": calls, "own_s": own, "cum_s": cumulative})
    total = stats.total_tt  # type: ignore[attr-defined]
    by_own = sorted(rows, key=lambda r: -float(r["own_s"]))[:top]
    by_cum = sorted(rows, key=lambda r: -float(r["cum_s"]))[:top]
    return {
        "queries": [{"qid": q.qid, "kind": q.kind, "query": q.query} for q in queries],
        "total_s": total,
        "by_own_time": by_own,
        "by_cumulative_time": by_cum,
    }
