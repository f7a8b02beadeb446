"""A full sync indexes exactly what the tenant's account can see, deep content included."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from tests.support.config_files import make_tenant
from tests.support.corpora import WIKI_IDS, expected_ids, sample_corpus, user_of
from tests.support.sandbox import ADMIN_KEY, MEMBER_KEY, OUTSIDER_KEY, running_sandbox
from tests.sync.conftest import indexed_ids

from opindex.errors import IndexUnavailableError
from opindex.index import TenantIndex
from opindex.state import StateStore
from opindex.sync import SyncReport, index_directory, run_end, sync_tenant

KEYS = (MEMBER_KEY, OUTSIDER_KEY, ADMIN_KEY)
Synced = dict[str, tuple[Path, SyncReport]]


@pytest.fixture(scope="module")
def shared_corpus() -> dict[str, Any]:
    return sample_corpus()


@pytest.fixture(scope="module")
def synced(
    shared_corpus: dict[str, Any], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Synced]:
    """One full sync per account against one sandbox; tests only read the results."""
    results: Synced = {}
    with running_sandbox(shared_corpus) as sandbox:
        for key in KEYS:
            data_dir = tmp_path_factory.mktemp(key)
            report = asyncio.run(sync_tenant(make_tenant(sandbox, key), data_dir))
            results[key] = (data_dir, report)
        yield results


@pytest.mark.parametrize("key", KEYS)
def test_full_sync_indexes_exactly_what_the_account_sees(
    synced: Synced, shared_corpus: dict[str, Any], key: str
) -> None:
    data_dir, report = synced[key]
    corpus = shared_corpus
    user = user_of(corpus, key)
    for kind in ("work_package", "wiki_page", "meeting"):
        ids = indexed_ids(data_dir, "acme", kind)
        assert len(ids) == len(set(ids)), f"duplicate {kind} documents"
        assert set(ids) == expected_ids(corpus, user, kind), kind
        assert report.documents[kind] == len(ids)
    assert report.kind == "full"
    assert report.swept


def test_closed_work_packages_and_far_wiki_pages_are_included(
    synced: Synced, shared_corpus: dict[str, Any]
) -> None:
    data_dir = synced[ADMIN_KEY][0]
    closed = {wp["id"] for wp in shared_corpus["work_packages"] if wp["status"] == 3}
    assert closed, "the corpus must hold closed work packages"
    with TenantIndex(index_directory(data_dir, "acme")) as index:
        for wp_id in closed:
            record = index.get("work_package", wp_id)
            assert record is not None and record.attributes["is_closed"] is True
        assert set(index.all_ids("wiki_page")) == set(WIKI_IDS)
        page = index.get("wiki_page", 90)
        assert page is not None
        assert [v.text for v in page.document.fields["text"]] == ["How to rotate keys, page 90."]


def test_meetings_carry_agenda_items_outcomes_and_participants(synced: Synced) -> None:
    data_dir = synced[ADMIN_KEY][0]
    with TenantIndex(index_directory(data_dir, "acme")) as index:
        meeting = index.get("meeting", 3)
    assert meeting is not None
    fields = meeting.document.fields
    assert [v.text for v in fields["agenda_title"]] == [
        "Agenda item 1 of meeting 3",
        "Agenda item 2 of meeting 3",
    ]
    assert fields["agenda_notes"][0].text == "Notes about hiring plan 3/1"
    assert [(v.text, v.ref) for v in fields["outcome_notes"]] == [
        ("Decided to hire 3/1", 301),
        ("Decided to hire 3/2", 302),
    ]
    assert {v.text for v in fields["participants"]} == {"Ada Admin", "Bob Müller"}


def test_internal_comments_only_reach_an_admin_index(
    synced: Synced, shared_corpus: dict[str, Any]
) -> None:
    internal = {
        (wp["id"], activity["id"])
        for wp in shared_corpus["work_packages"]
        for activity in wp["activities"]
        if activity["internal"] and wp["project"] == 1
    }
    assert internal, "the corpus must hold internal comments in a shared project"

    def comment_refs(data_dir: Path) -> set[tuple[int, int]]:
        found: set[tuple[int, int]] = set()
        with TenantIndex(index_directory(data_dir, "acme")) as index:
            for wp_id in index.all_ids("work_package"):
                record = index.get("work_package", wp_id)
                assert record is not None
                found |= {(wp_id, v.ref or 0) for v in record.document.fields["comments"]}
        return found

    assert not internal & comment_refs(synced[MEMBER_KEY][0])
    assert internal <= comment_refs(synced[ADMIN_KEY][0])


def test_full_sync_records_state_for_the_next_run(
    synced: Synced, shared_corpus: dict[str, Any]
) -> None:
    data_dir, report = synced[MEMBER_KEY]
    corpus = shared_corpus
    with StateStore.for_tenant(data_dir, "acme") as state:
        run = state.latest_run()
        assert run is not None and run.outcome == "succeeded" and run.kind == "full"
        assert run.requests == report.requests > 0
        pointer = state.get_index_pointer()
        assert pointer is not None and pointer.opstamp == report.opstamp
        # The server's clock (its Date header) minus the margin, never a record's date.
        high_water = state.get_high_water("work_packages")
        assert high_water is not None
        margin = timedelta(seconds=300)
        assert report.started_at - margin - timedelta(seconds=2) <= high_water
        assert high_water <= report.finished_at - margin
        manifest = state.get_manifest_summary()
        assert manifest is not None and manifest.run_id == run.id
        visible = expected_ids(corpus, user_of(corpus, MEMBER_KEY), "work_package")
        assert manifest.listed == manifest.added == len(visible)
        discovery = state.get_wiki_discovery()
        assert discovery.highest_id_seen == max(
            expected_ids(corpus, user_of(corpus, MEMBER_KEY), "wiki_page")
        )
        capabilities = state.get_capabilities()
        assert capabilities is not None
        assert capabilities.data["account"] == {"id": 2, "login": "bob"}
        assert capabilities.data["server"]["meeting_outcomes"] is True


@pytest.mark.parametrize(
    ("options", "agenda", "text"),
    [
        ({"wiki_list": True, "meetings_api": "17.4"}, True, True),
        ({"no_wiki_text": True, "meetings_api": "16"}, False, False),
    ],
)
async def test_server_variants(
    corpus: dict[str, Any], tmp_path: Path, options: dict[str, Any], agenda: bool, text: bool
) -> None:
    with running_sandbox(corpus, **options) as sandbox:
        report = await sync_tenant(make_tenant(sandbox, ADMIN_KEY), tmp_path)
        if options.get("wiki_list"):
            # Discovery used the list: no probing of single pages beyond the capability check.
            probes = [
                path
                for path in sandbox.stats()["by_path"]
                if path.startswith("/api/v3/wiki_pages/") and not path.endswith("/attachments")
            ]
            assert len(probes) <= 1
    assert report.documents["wiki_page"] == len(WIKI_IDS)
    assert report.documents["meeting"] == len(corpus["meetings"])
    with TenantIndex(index_directory(tmp_path, "acme")) as index:
        meeting = index.get("meeting", 1)
        page = index.get("wiki_page", 61)
    assert meeting is not None and page is not None
    assert ("agenda_notes" in meeting.document.fields) is agenda
    assert ("text" in page.document.fields) is text
    if options["meetings_api"] == "17.4":
        assert "outcome_notes" not in meeting.document.fields


def test_a_full_sync_of_several_checkpoints_ends_with_one_segment(
    shared_corpus: dict[str, Any], tmp_path: Path
) -> None:
    """Each checkpoint commits a segment; the full sync compacts them before publishing
    (DECISIONS D140), and the index still holds exactly what the account sees."""
    with running_sandbox(shared_corpus) as sandbox:
        report = asyncio.run(
            sync_tenant(make_tenant(sandbox, ADMIN_KEY), tmp_path, checkpoint_records=2)
        )
    with TenantIndex(index_directory(tmp_path, "acme")) as index:
        stats = index.stats()
    assert stats.segments == 1
    assert stats.opstamp == report.opstamp
    user = user_of(shared_corpus, ADMIN_KEY)
    for kind in ("work_package", "wiki_page", "meeting"):
        assert set(indexed_ids(tmp_path, "acme", kind)) == expected_ids(shared_corpus, user, kind)


def test_a_compaction_that_fails_publishes_the_checkpointed_generation(
    shared_corpus: dict[str, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def full_disk(index: TenantIndex) -> TenantIndex:
        raise IndexUnavailableError("no space left on device")

    monkeypatch.setattr(run_end, "compacted", full_disk)
    with running_sandbox(shared_corpus) as sandbox:
        report = asyncio.run(
            sync_tenant(make_tenant(sandbox, ADMIN_KEY), tmp_path, checkpoint_records=2)
        )
    directory = index_directory(tmp_path, "acme")
    with TenantIndex(directory) as index:
        stats = index.stats()
    assert stats.segments > 1 and stats.opstamp == report.opstamp
    assert directory.generations() == [report.generation]
    user = user_of(shared_corpus, ADMIN_KEY)
    assert set(indexed_ids(tmp_path, "acme", "work_package")) == expected_ids(
        shared_corpus, user, "work_package"
    )
