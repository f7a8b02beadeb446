"""News, documents, projects, versions and attached files: synced, searchable, visible to whom."""

from __future__ import annotations

import asyncio
import base64
import resource
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.extract.samples import encrypted_pdf
from tests.support.corpus_builder import ADMIN_KEY, MEMBER_KEY, OUTSIDER_KEY, CorpusBuilder
from tests.support.synced_tenant import TENANT, SyncedTenant, sync, synced_tenant

from opindex.config import load_config_file
from opindex.envelope import GlobalSearchResponse, SearchRequest, SearchResponse
from opindex.index import TenantIndex
from opindex.search import Kind
from opindex.service import Service
from opindex.state import StateStore
from opindex.sync import index_directory, refresh_work_packages, sync_tenant
from opindex.sync.attachments import RunBudget

CONTRACT = (
    "Supplier contract. The indemnification clause covers third-party claims; a "
    "Vertragsstrafe applies when the renewal deadline is missed."
)


def _corpus() -> dict[str, Any]:
    corpus = CorpusBuilder()
    corpus.add_work_package(101, subject="Renew TLS certificate", project=1)
    corpus.add_work_package(201, subject="Hiring plan for spring", project=2)
    corpus.add_wiki_page(301, title="Onboarding", text="Read this first.", project=2)
    corpus.add_news(
        801,
        title="Quartalsbericht für Zürich",
        summary="Die Straßenbahn fährt wieder",
        description="Ausführliche Zahlen zum Haushaltsabschluss im Anhang.",
    )
    corpus.add_news(802, project=2, title="Team offsite in Lisbon", summary="Agenda inside")
    corpus.add_document(851, title="Supplier agreements", description="Signed originals.")
    corpus.add_document(852, project=2, title="Salary bands", description="Confidential.")
    corpus.add_version(871, name="Release Aurora", description="Ships the kaleidoscope view.")
    corpus.add_version(872, project=2, name="Hiring wave", description="Recruiting sprint.")
    corpus.data["projects"][0]["description"] = "Keeps the lights on."
    corpus.data["projects"][0]["statusExplanation"] = "Budget freeze until the audit ends."
    corpus.add_attachment(
        951,
        ("work_packages", 101),
        fileName="contract.pdf",
        contentType="application/pdf",
        generate={"format": "pdf", "text": CONTRACT},
    )
    corpus.add_attachment(
        952,
        ("documents", 851),
        fileName="appendix.docx",
        generate={"format": "docx", "text": "Payment terms: net thirty days, Skonto 2 %."},
    )
    corpus.add_attachment(
        953,
        ("work_packages", 201),
        fileName="bands.txt",
        generate={"format": "text", "text": "Confidential compensation matrix."},
    )
    return corpus.build()


@pytest.fixture(scope="module")
def admin(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SyncedTenant]:
    with synced_tenant(tmp_path_factory.mktemp("admin"), _corpus(), ADMIN_KEY) as tenant:
        yield tenant


def _search(tenant: SyncedTenant, kind: Kind, query: str, **options: Any) -> SearchResponse:
    async def run() -> SearchResponse:
        async with Service.from_config(tenant.config) as service:
            request = SearchRequest(kind=kind, query=query, source="index", **options)
            return await service.search(request)

    return asyncio.run(run())


def _everything(tenant: SyncedTenant, query: str, **options: Any) -> GlobalSearchResponse:
    async def run() -> GlobalSearchResponse:
        async with Service.from_config(tenant.config) as service:
            request = SearchRequest(kind="work_package", query=query, **options)
            return await service.search_everything(request)

    return asyncio.run(run())


def _ids(tenant: SyncedTenant, kind: str) -> list[int]:
    with TenantIndex(index_directory(tenant.data_dir, TENANT)) as index:
        return sorted(index.all_ids(kind))


def test_every_new_kind_is_indexed(admin: SyncedTenant) -> None:
    assert _ids(admin, "news") == [801, 802]
    assert _ids(admin, "document") == [851, 852]
    assert _ids(admin, "version") == [871, 872]
    assert _ids(admin, "project") == [1, 2, 3]
    assert _ids(admin, "attachment") == [951, 952, 953]


@pytest.mark.parametrize(
    ("kind", "query", "expected", "case"),
    [
        ("news", "quartalsbrecht", 801, "typo"),
        ("news", "zurich strassenbahn", 801, "diacritics"),
        ("news", "haushaltsabschluss", 801, "deep: description only"),
        ("document", "suplier agrements", 851, "typo"),
        ("document", "skonto", 851, "deep: its attached file only"),
        ("project", "budget freeze", 1, "deep: status explanation only"),
        ("project", "operatoins", 1, "typo"),
        ("version", "kaleidoscope", 871, "deep: description only"),
        ("version", "realease auora", 871, "typo"),
        ("attachment", "indemnification", 951, "deep: file text only"),
        ("attachment", "vertragsstrafe", 951, "diacritics-free word in a PDF"),
        ("work_package", "indemnifcation clause", 101, "typo, only inside its PDF"),
    ],
)
def test_known_items_of_the_new_kinds_are_found(
    admin: SyncedTenant, kind: Kind, query: str, expected: int, case: str
) -> None:
    found = _search(admin, kind, query, limit=10)
    assert expected in [result.id for result in found.results], case


def test_a_hit_inside_an_attached_file_names_the_file(admin: SyncedTenant) -> None:
    found = _search(admin, "work_package", "indemnification clause")
    hit = found.results[0]
    assert hit.id == 101 and hit.matched_fields == ["attachments"]
    assert hit.matched_attachments is not None
    assert [(a.id, a.file_name) for a in hit.matched_attachments] == [(951, "contract.pdf")]
    assert "indemnification" in (hit.matched_attachments[0].snippet or hit.snippet or "")


def test_the_global_search_ranks_every_kind_together(admin: SyncedTenant) -> None:
    found = _everything(admin, "indemnification clause")
    kinds = [(result.kind, result.id) for result in found.results]
    assert ("work_package", 101) in kinds and ("attachment", 951) in kinds
    scores = [result.score for result in found.results]
    assert scores == sorted(scores, reverse=True)
    assert {answer.kind for answer in found.meta.kinds} >= {"news", "document", "attachment"}
    assert found.meta.not_searched == []


def test_the_global_search_narrows_to_the_kinds_asked_for(admin: SyncedTenant) -> None:
    async def run() -> GlobalSearchResponse:
        async with Service.from_config(admin.config) as service:
            request = SearchRequest(kind="work_package", query="hiring")
            return await service.search_everything(request, ["version", "news"])

    found = asyncio.run(run())
    assert {result.kind for result in found.results} <= {"version", "news"}
    assert ("version", 872) in [(result.kind, result.id) for result in found.results]


def test_extractions_are_recorded_once_per_file(admin: SyncedTenant) -> None:
    with StateStore.for_tenant(admin.data_dir, TENANT) as state:
        summary = state.extraction_summary()
        assert summary["by_outcome"] == {"extracted": 3}
        sync(admin.config)  # a second full run reads the lists again, extracts nothing new
        rows = state.extractions([951, 952, 953])
    assert sorted(rows) == [951, 952, 953]
    assert admin.sandbox.stats()["by_path"].get("/api/v3/attachments/951/content", 0) == 1


@pytest.mark.parametrize(
    ("key", "visible"),
    [(MEMBER_KEY, True), (OUTSIDER_KEY, False)],
    ids=["member of project 2", "outsider"],
)
def test_records_of_invisible_projects_never_appear(
    tmp_path: Path, key: str, visible: bool
) -> None:
    with synced_tenant(tmp_path, _corpus(), key) as tenant:
        private = {
            "news": 802,
            "document": 852,
            "version": 872,
            "project": 2,
            "attachment": 953,
        }
        for kind, record_id in private.items():
            assert (record_id in _ids(tenant, kind)) is visible, kind
        found = _everything(tenant, "confidential compensation salary hiring offsite")
        shown = {(result.kind, result.id) for result in found.results}
        assert bool(shown & {(k, i) for k, i in private.items()}) is visible
        live = _everything(tenant, "offsite lisbon", source="live")
        assert (("news", 802) in {(r.kind, r.id) for r in live.results}) is visible


def test_deleted_records_and_the_files_of_deleted_containers_go(tmp_path: Path) -> None:
    with synced_tenant(tmp_path, _corpus(), ADMIN_KEY) as tenant:
        tenant.sandbox.mutate("delete", "news", {"id": 801})
        tenant.sandbox.mutate("delete", "documents", {"id": 851})
        tenant.sandbox.mutate("delete", "versions", {"id": 871})
        sync(tenant.config)
        assert _ids(tenant, "news") == [802]
        assert _ids(tenant, "document") == [852]
        assert _ids(tenant, "version") == [872]
        assert 952 not in _ids(tenant, "attachment")  # it was attached to document 851
        with StateStore.for_tenant(tenant.data_dir, TENANT) as state:
            assert state.extractions([952]) == {}


def test_bad_files_are_skipped_with_a_counted_reason_and_the_sync_completes(
    tmp_path: Path,
) -> None:
    corpus = CorpusBuilder()
    corpus.add_work_package(101, subject="Evidence locker", project=1)
    locked = encrypted_pdf(["secret minutes"], user_password="u", owner_password="o")
    files: list[tuple[int, str, dict[str, Any]]] = [
        (961, "backup.pdf", {"generate": {"format": "filler", "bytes": 200 * 1024 * 1024}}),
        (962, "broken.pdf", {"generate": {"format": "corrupt_pdf", "bytes": 4096}}),
        (963, "locked.pdf", {"contentBase64": base64.b64encode(locked).decode()}),
        (964, "report.docx", {"generate": {"format": "zipbomb", "bytes": 256 * 1024 * 1024}}),
        (965, "notes.txt", {"generate": {"format": "text", "text": "ordinary readable notes"}}),
    ]
    for attachment_id, name, content in files:
        corpus.add_attachment(attachment_id, ("work_packages", 101), fileName=name, **content)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with synced_tenant(tmp_path, corpus.build(), ADMIN_KEY) as tenant:
        grown_mib = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
        with StateStore.for_tenant(tenant.data_dir, TENANT) as state:
            rows = state.extractions([961, 962, 963, 964, 965])
            summary = state.extraction_summary()
        assert {i: (row.outcome, row.reason) for i, row in rows.items()} == {
            961: ("skipped", "too_large"),
            962: ("failed", "corrupt"),
            963: ("skipped", "encrypted"),
            964: ("skipped", "zip_bomb"),
            965: ("extracted", None),
        }
        assert summary["by_reason"] == {"too_large": 1, "corrupt": 1, "encrypted": 1, "zip_bomb": 1}
        assert _ids(tenant, "attachment") == [961, 962, 963, 964, 965]
        assert 101 in [r.id for r in _search(tenant, "work_package", "ordinary notes").results]
        # The 200 MB file was never read: its size ruled it out before any download.
        by_path = tenant.sandbox.stats()["by_path"]
        assert by_path.get("/api/v3/attachments/961/content", 0) == 0
    assert grown_mib < 150, f"the sync grew this process by {grown_mib:.0f} MiB"


def test_a_tenant_may_leave_attached_files_unread(tmp_path: Path) -> None:
    with synced_tenant(tmp_path, _corpus(), ADMIN_KEY, do_sync=False) as tenant:
        config_text = tenant.config_path.read_text(encoding="utf-8")
        tenant.config_path.write_text(
            config_text.replace('name = "acme"', 'name = "acme"\nread_attachments = false'),
            encoding="utf-8",
        )
        config = load_config_file(tenant.config_path)
        assert config.tenants[0].read_attachments is False
        sync(config)
        assert _ids(tenant, "attachment") == []
        assert _ids(tenant, "news") == [801, 802]
        by_path = tenant.sandbox.stats()["by_path"]
        assert not [path for path in by_path if path.endswith("/attachments")]


def test_files_beyond_a_run_budget_wait_for_the_next_runs(tmp_path: Path) -> None:
    corpus = CorpusBuilder()
    corpus.add_work_package(101, subject="Three files", project=1)
    for attachment_id in (971, 972, 973):
        corpus.add_attachment(attachment_id, ("work_packages", 101))
    with synced_tenant(tmp_path, corpus.build(), ADMIN_KEY, do_sync=False) as tenant:
        (config,) = tenant.config.tenants
        budget = RunBudget(files=2)

        def run_and_count() -> dict[int, str]:
            asyncio.run(sync_tenant(config, tenant.data_dir, file_budget=budget))
            with StateStore.for_tenant(tenant.data_dir, TENANT) as state:
                return {i: row.outcome for i, row in state.extractions([971, 972, 973]).items()}

        assert run_and_count() == {971: "extracted", 972: "extracted", 973: "deferred"}
        # Nothing changed on the server, yet the next run reads the deferred file.
        assert run_and_count() == dict.fromkeys((971, 972, 973), "extracted")
        found = _search(tenant, "work_package", "attachment 973")
        assert found.results and found.results[0].id == 101
        assert [a.id for a in found.results[0].matched_attachments or []][:1] == [973]


def test_a_webhook_refresh_keeps_and_reads_the_attached_files(tmp_path: Path) -> None:
    """A targeted re-fetch (a webhook's) writes the work package with its files' text."""
    with synced_tenant(tmp_path, _corpus(), ADMIN_KEY) as tenant:
        tenant.sandbox.mutate("upsert", "work_packages", {"id": 101, "subject": "Renew it"})
        tenant_config = tenant.config.tenants[0]
        report = asyncio.run(refresh_work_packages(tenant_config, tenant.data_dir, [101]))
        assert report.upserted == 1

        hit = _search(tenant, "work_package", "indemnification clause").results[0]
        assert hit.id == 101 and hit.title == "Renew it"
        assert hit.matched_attachments is not None
        assert [(a.id, a.file_name) for a in hit.matched_attachments] == [(951, "contract.pdf")]

        # The next run trusts what the refresh recorded: the text must not wait for it.
        sync(tenant.config)
        assert _search(tenant, "work_package", "indemnification clause").results[0].id == 101
