"""A 10k-document tenant: an unchanged incremental sync costs a handful of requests."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.support.clock import Clock
from tests.support.sandbox import running_sandbox

from opindex.config import Secret, TenantConfig
from opindex.sandbox.corpus_gen import ADMIN_KEY, CorpusSize, generate_corpus, write_corpus
from opindex.sync import sync_tenant

WORK_PACKAGES = 9174  # + 458 wiki pages + 366 meetings = 9,998 documents


@pytest.mark.slow
# Reproduced by scripts/bench_sync.py (incremental request count at 10k).
@pytest.mark.covered_by_benchmark
async def test_unchanged_10k_tenant_reads_one_manifest_page(tmp_path: Path, clock: Clock) -> None:
    corpus_path = tmp_path / "corpus.json"
    write_corpus(generate_corpus(CorpusSize.proportional(WORK_PACKAGES), seed=1), corpus_path)
    with running_sandbox(corpus_path) as sandbox:
        tenant = TenantConfig(name="big", base_url=sandbox.base_url, api_key=Secret(ADMIN_KEY))
        full = await sync_tenant(tenant, tmp_path / "data", clock=clock, concurrency=16)
        content = ("work_package", "wiki_page", "meeting")
        assert sum(full.documents[kind] for kind in content) == 9_998

        sandbox.reset_stats()
        unchanged = await sync_tenant(tenant, tmp_path / "data", clock=clock)
        by_path = sandbox.stats()["by_path"]
        assert sandbox.stats()["requests"] == unchanged.requests
        # The newest-first page and its count, not the ten pages of the whole listing.
        assert by_path["/api/v3/work_packages"] == 1
        assert by_path["/api/v3/meetings"] == 1
        wiki = sum(n for path, n in by_path.items() if path.startswith("/api/v3/wiki_pages"))
        listed = sum(by_path[f"/api/v3/{name}"] for name in ("news", "documents", "versions"))
        assert listed == 3  # one page each, whatever their number (none in this corpus)
        assert unchanged.requests == 2 + 1 + 1 + listed + wiki
        assert unchanged.opstamp == full.opstamp
        assert unchanged.documents == full.documents
