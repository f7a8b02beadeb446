"""Cross-field known-item queries (title words plus one rare deep word) find their record first.

The set comes from ``evallib.cross_field``: ``build`` is the half the rarity tie-break was
measured on, ``held_out`` the other half. Both run end to end: the sample corpus served
by the sandbox, synced, searched through the service on the index path (DECISIONS D201).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.support.config_files import write_config
from tests.support.sandbox import running_sandbox

from evallib.corpus_view import corpus_items
from evallib.cross_field import Split, cross_field_queries
from opindex.config import Config, load_config
from opindex.envelope import SearchRequest
from opindex.sandbox.sample_corpus import sample_corpus_path
from opindex.service import Service
from opindex.sync import sync_tenant

MIN_FIRST = 0.95
MIN_MRR = 0.95


@pytest.fixture(scope="module")
def synced(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Config]:
    with running_sandbox(sample_corpus_path()) as sandbox:
        directory: Path = tmp_path_factory.mktemp("cross-field")
        config = load_config(write_config(directory, [("admin", sandbox, "key-admin")]))
        for tenant in config.tenants:
            asyncio.run(sync_tenant(tenant, config.data_dir))
        yield config


async def _ranks(config: Config, split: Split) -> list[int | None]:
    corpus = json.loads(sample_corpus_path().read_text(encoding="utf-8"))
    queries = cross_field_queries(corpus_items(corpus), split)
    assert len(queries) >= 50, len(queries)
    ranks: list[int | None] = []
    async with Service.from_config(config) as service:
        for query in queries:
            request = SearchRequest(kind=query.kind, query=query.query, source="index")
            ids = [result.id for result in (await service.search(request)).results[:10]]
            ranks.append(ids.index(query.expected_id) + 1 if query.expected_id in ids else None)
    return ranks


@pytest.mark.slow
@pytest.mark.parametrize("split", ["build", "held_out"])
async def test_the_record_with_the_rare_word_comes_first(synced: Config, split: Split) -> None:
    ranks = await _ranks(synced, split)
    first = sum(1 for rank in ranks if rank == 1) / len(ranks)
    mrr = sum(1 / rank for rank in ranks if rank) / len(ranks)
    assert all(rank is not None for rank in ranks), ranks  # top 10 every time
    assert first >= MIN_FIRST and mrr >= MIN_MRR, (first, mrr)


def test_the_two_halves_do_not_share_a_record() -> None:
    corpus = json.loads(sample_corpus_path().read_text(encoding="utf-8"))
    items = corpus_items(corpus)
    build = {(q.kind, q.expected_id) for q in cross_field_queries(items, "build")}
    held = {(q.kind, q.expected_id) for q in cross_field_queries(items, "held_out")}
    assert build and held and not build & held
