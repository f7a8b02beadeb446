"""Build a benchmark tenant straight from a corpus file, without one request per record.

A full sync of a 1M-document corpus would send about a million requests (one activities
request per work package, one per wiki page and meeting agenda). This builder produces
the same index without them: each record is rendered by the sandbox's own HAL
representers (the bodies the sandbox would answer the sync's admin account with), parsed
by the OpenProject client's own models (``from_hal``), turned into a Record by the one
conversion the syncer uses (:mod:`opindex.record_builders`), and written through
``TenantIndex`` like a sync writes it: a fresh generation, committed and published, then
the state database records the run, the index pointer and the known records. What it
skips is the transport and the sync's paging and change detection, which the index does
not depend on; ``tests/evaluation/test_bulk_tenant.py`` checks that a bulk-built tenant
stores exactly the records a real sync stores.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from opindex.config import TenantConfig
from opindex.index import SCHEMA_VERSION, TenantIndex
from opindex.openproject import (
    AgendaItem,
    Meeting,
    Status,
    WikiPage,
    WorkPackage,
    closed_status_ids,
    resolve_status_closed,
)
from opindex.openproject.models import Activity
from opindex.record_builders import meeting_record, wiki_page_record, work_package_record
from opindex.records import Record
from opindex.sandbox.corpus import Corpus
from opindex.sandbox.corpus_check import load_corpus_file
from opindex.sandbox.hal_content import (
    activity_resource,
    agenda_item_resource,
    journal_versions,
    meeting_resource,
    wiki_page_resource,
    work_package_resource,
)
from opindex.sandbox.hal_core import status_resource
from opindex.sandbox.options import MeetingsApi
from opindex.sandbox.store import SandboxStore
from opindex.state import IndexPointer, RecordVersion, StateStore
from opindex.state.models import utc_now
from opindex.sync.changes import content_hash
from opindex.sync.locations import index_directory

BATCH = 2_000
"""Records per ``TenantIndex.upsert`` call (the syncer writes a page at a time)."""
MEETINGS_API = MeetingsApi("17.6")


@dataclass(frozen=True, slots=True)
class BulkReport:
    """What a bulk build wrote: documents per kind, generation and commit stamp."""

    documents: dict[str, int]
    generation: str
    opstamp: int


def corpus_records(corpus: Corpus) -> Iterator[Record]:
    """Every record an admin's full sync of *corpus* indexes, in the syncer's conversion."""
    store = SandboxStore(corpus)
    statuses = [Status.from_hal(status_resource(s)) for s in store.statuses.values()]
    closed_by_status = closed_status_ids(statuses)
    for source in corpus.work_packages:
        wp = WorkPackage.from_hal(work_package_resource(store, source))
        versions = journal_versions(source)
        activities = [
            Activity.from_hal(activity_resource(store, source, entry, versions[entry.id]))
            for entry in source.activities
        ]
        closed = resolve_status_closed(wp, closed_by_status)
        yield work_package_record(wp, activities, status_closed=closed)
    for meeting_source in corpus.meetings:
        meeting = Meeting.from_hal(meeting_resource(store, meeting_source, MEETINGS_API))
        ordered = sorted(meeting_source.agenda_items, key=lambda item: (item.position, item.id))
        items = tuple(
            AgendaItem.from_hal(agenda_item_resource(store, meeting_source, item, MEETINGS_API))
            for item in ordered
        )
        yield meeting_record(meeting, items)
    for page in corpus.wiki_pages:
        yield wiki_page_record(WikiPage.from_hal(wiki_page_resource(store, page, with_text=True)))


def bulk_build(corpus_path: Path, data_dir: Path, tenant: TenantConfig) -> BulkReport:
    """Index every record of the corpus file as *tenant* in *data_dir* (a fresh tenant)."""
    corpus = load_corpus_file(corpus_path)
    state = StateStore.for_tenant(data_dir, tenant.name)
    try:
        run = state.start_run("full")
        index = TenantIndex.create_generation(index_directory(data_dir, tenant.name))
        versions: dict[str, list[RecordVersion]] = {}
        newest: datetime | None = None
        try:
            batch: list[Record] = []
            for record in corpus_records(corpus):
                batch.append(record)
                kind = record.document.kind
                versions.setdefault(kind, []).append(
                    RecordVersion(record.id, record.updated_at, content_hash(record))
                )
                if kind == "work_package" and record.updated_at is not None:
                    newest = max(newest or record.updated_at, record.updated_at)
                if len(batch) >= BATCH:
                    index.upsert(batch)
                    batch = []
            index.upsert(batch)
            info = index.commit()
            index.publish()
        finally:
            index.close()
        with state.transaction():
            for kind, known in versions.items():
                state.upsert_known(kind, known)
            if newest is not None:
                state.set_high_water("work_packages", newest)
            state.set_index_pointer(
                IndexPointer(info.generation, SCHEMA_VERSION, info.opstamp, utc_now())
            )
            state.finish_run(run.id, requests=0, index_opstamp=info.opstamp)
    finally:
        state.close()
    documents = {kind: len(known) for kind, known in versions.items()}
    return BulkReport(documents, info.generation, info.opstamp)
