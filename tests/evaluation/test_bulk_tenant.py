"""A tenant built in bulk from a corpus file stores what a real sync of that corpus stores."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from tests.support.sandbox import running_sandbox

from evallib.bulk_tenant import CorpusSource, bulk_build, corpus_records
from evallib.corpus_stream import NotCanonicalError, read_head, sample_corpus
from evallib.tenant_builds import build_tenant
from evallib.zipf_corpus import generate_zipf_corpus
from opindex.config import Config, Secret, TenantConfig
from opindex.envelope import SearchRequest
from opindex.errors import CorpusError
from opindex.index import TenantIndex
from opindex.sandbox.corpus_check import load_corpus_file
from opindex.sandbox.corpus_gen import ADMIN_KEY, CorpusSize, write_corpus
from opindex.search.document import KINDS
from opindex.service import Service
from opindex.state import StateStore
from opindex.sync import sync_tenant
from opindex.sync.locations import index_directory

TENANT = "acme"
SECTIONS = ("work_packages", "wiki_pages", "meetings")


@pytest.fixture(scope="module")
def corpus_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("corpus") / "zipf.json"
    write_corpus(generate_zipf_corpus(CorpusSize.proportional(90), seed=5), path)
    return path


def tenant_config(base_url: str) -> TenantConfig:
    return TenantConfig(name=TENANT, base_url=base_url, api_key=Secret(ADMIN_KEY))


@pytest.fixture(scope="module")
def built(corpus_file: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(synced data dir, bulk-built data dir) of the same corpus."""
    synced = tmp_path_factory.mktemp("synced")
    with running_sandbox(corpus_file) as sandbox:
        asyncio.run(sync_tenant(tenant_config(sandbox.base_url), synced))
    bulk = tmp_path_factory.mktemp("bulk")
    bulk_build(corpus_file, bulk, tenant_config("http://sandbox.invalid"))
    return synced, bulk


def test_bulk_build_stores_exactly_the_records_a_sync_stores(built: tuple[Path, Path]) -> None:
    synced, bulk = built
    with (
        TenantIndex(index_directory(synced, TENANT)) as expected,
        TenantIndex(index_directory(bulk, TENANT)) as got,
    ):
        for kind in KINDS:
            ids = expected.all_ids(kind)
            # A generated corpus has no news, documents, versions or files unless asked for.
            assert ids or kind in ("news", "document", "version", "attachment"), kind
            assert got.all_ids(kind) == ids
            for record_id in ids:
                assert got.get(kind, record_id) == expected.get(kind, record_id), (kind, record_id)


def test_bulk_build_records_a_finished_run_the_pointer_and_known_records(
    built: tuple[Path, Path],
) -> None:
    synced, bulk = built
    stores = [StateStore.for_tenant(d, TENANT) for d in (synced, bulk)]
    try:
        expected, got = stores
        run = got.last_successful_run()
        assert run is not None and run.kind == "full"
        pointer = got.get_index_pointer()
        assert pointer is not None
        assert pointer.directory == index_directory(bulk, TENANT).current()
        assert got.count_known() == {k: v for k, v in expected.count_known().items() if k in KINDS}
    finally:
        for store in stores:
            store.close()


@pytest.mark.parametrize(
    ("kind", "section"),
    [("work_package", "work_packages"), ("wiki_page", "wiki_pages"), ("meeting", "meetings")],
)
def test_searches_answer_the_same_from_both_tenants(
    built: tuple[Path, Path], corpus_file: Path, kind: Any, section: str
) -> None:
    record = json.loads(corpus_file.read_text(encoding="utf-8"))[section][1]
    query = " ".join((record.get("subject") or record["title"]).split()[-3:])

    async def answer(data_dir: Path) -> list[tuple[int, float]]:
        config = Config(data_dir=data_dir, tenants=(tenant_config("http://sandbox.invalid"),))
        async with Service.from_config(config) as service:
            request = SearchRequest(kind=kind, query=query, source="index")
            response = await service.search(request, tenant=TENANT)
        assert response.meta.source == "index"
        return [(result.id, result.score) for result in response.results]

    synced, bulk = built
    expected = asyncio.run(answer(synced))
    assert expected
    assert asyncio.run(answer(bulk)) == expected


def test_build_tenant_caches_and_refuses_unknown_methods(corpus_file: Path, tmp_path: Path) -> None:
    first = build_tenant(corpus_file, tmp_path, "bulk")
    marker = first.tenant.data_dir / "ready.json"
    stamp = marker.stat().st_mtime_ns
    again = build_tenant(corpus_file, tmp_path, "bulk")
    assert again.tenant.data_dir == first.tenant.data_dir
    assert marker.stat().st_mtime_ns == stamp  # not rebuilt
    assert again.build_seconds == first.build_seconds
    assert first.disk_bytes > 0 and first.corpus_bytes == corpus_file.stat().st_size
    assert sum(first.tenant.sync["documents"].values()) > 90
    with pytest.raises(ValueError, match="unknown build method 'rsync'"):
        build_tenant(corpus_file, tmp_path, "rsync")  # type: ignore[arg-type]


def test_streamed_and_whole_corpus_files_give_the_same_records(
    corpus_file: Path, tmp_path: Path
) -> None:
    pretty = tmp_path / "pretty.json"
    pretty.write_text(json.dumps(json.loads(corpus_file.read_text("utf-8")), indent=2), "utf-8")
    with pytest.raises(NotCanonicalError):
        read_head(pretty)
    streamed = list(corpus_records(CorpusSource.open(corpus_file)))
    whole = list(corpus_records(CorpusSource.open(pretty)))
    whole_corpus = load_corpus_file(corpus_file)
    active = sum(1 for project in whole_corpus.projects if project.active)
    assert len(streamed) == active + sum(len(getattr(whole_corpus, k)) for k in SECTIONS)
    assert streamed == whole


def test_a_record_of_a_missing_project_fails_the_build_and_leaves_no_index(
    corpus_file: Path, tmp_path: Path
) -> None:
    data = json.loads(corpus_file.read_text("utf-8"))
    data["work_packages"][3]["project"] = 999
    bad = tmp_path / "bad.json"
    write_corpus(data, bad)
    target = tmp_path / "data"
    with pytest.raises(CorpusError, match=r"work package \d+ refers to project 999"):
        bulk_build(bad, target, tenant_config("http://sandbox.invalid"))
    assert index_directory(target, TENANT).current() is None
    assert index_directory(target, TENANT).generations() == []
    state = StateStore.for_tenant(target, TENANT)
    try:
        run = state.latest_run()
        assert run is not None and run.outcome == "failed" and "project 999" in (run.error or "")
        assert state.get_index_pointer() is None
    finally:
        state.close()


def test_a_sample_keeps_the_small_sections_and_the_first_records_of_each_kind(
    corpus_file: Path,
) -> None:
    whole = json.loads(corpus_file.read_text("utf-8"))
    sample = sample_corpus(corpus_file, 20)
    for key in ("version", "api_keys", "users", "projects", "statuses", "types"):
        assert sample[key] == whole[key]
    total = sum(len(whole[kind]) for kind in SECTIONS)
    for kind in SECTIONS:
        share = -(-len(whole[kind]) * 20 // total)
        assert sample[kind] == whole[kind][:share]
    assert 20 <= sum(len(sample[kind]) for kind in SECTIONS) <= 23
