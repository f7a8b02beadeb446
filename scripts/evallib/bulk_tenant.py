"""Build a benchmark tenant straight from a corpus file, without one request per record.

A full sync of a 1M-document corpus would send about a million requests (one activities
request per work package, one per wiki page and meeting agenda). This builder produces
the same index without them: each record is rendered by the sandbox's own HAL
representers (the bodies the sandbox would answer the sync's admin account with), parsed
by the OpenProject client's own models (``from_hal``), turned into a Record by the one
conversion the syncer uses (:mod:`opindex.record_builders`), and written through
``TenantIndex`` like a sync writes it: a fresh generation, committed and published, then
the state database records the run, the index pointer and the known records. A corpus
file in the canonical layout is streamed (:mod:`evallib.corpus_stream`), and the
generation is committed every :data:`COMMIT_RECORDS` records (as a full sync commits in
checkpoints), so memory does not grow with the corpus. What it
skips is the transport and the sync's paging and change detection, which the index does
not depend on; ``tests/evaluation/test_bulk_tenant.py`` checks that a bulk-built tenant
stores exactly the records a real sync stores.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from evallib.corpus_stream import NotCanonicalError, read_head, read_records
from opindex.config import TenantConfig
from opindex.errors import CorpusError
from opindex.index import SCHEMA_VERSION, TenantIndex
from opindex.openproject import (
    AgendaItem,
    Meeting,
    Project,
    Status,
    WikiPage,
    WorkPackage,
    closed_status_ids,
    resolve_status_closed,
)
from opindex.openproject.api_models import Activity
from opindex.record_builders import (
    meeting_record,
    project_record,
    wiki_page_record,
    work_package_record,
)
from opindex.records import Record
from opindex.sandbox.corpus import Corpus
from opindex.sandbox.corpus import Meeting as SandboxMeeting
from opindex.sandbox.corpus import WikiPage as SandboxWikiPage
from opindex.sandbox.corpus import WorkPackage as SandboxWorkPackage
from opindex.sandbox.corpus_check import load_corpus_file
from opindex.sandbox.hal_content import (
    activity_resource,
    agenda_item_resource,
    journal_versions,
    meeting_resource,
    wiki_page_resource,
    work_package_resource,
)
from opindex.sandbox.hal_core import project_resource, status_resource
from opindex.sandbox.options import MeetingsApi
from opindex.sandbox.store import SandboxStore
from opindex.state import IndexPointer, RecordVersion, StateStore
from opindex.state.state_values import utc_now
from opindex.sync.changes import content_hash
from opindex.sync.locations import index_directory

BATCH = 2_000
"""Records per ``TenantIndex.upsert`` call (the syncer writes a page at a time)."""
COMMIT_RECORDS = 250_000
"""Records per commit of a bulk build. A commit holds its records' analysed values in
memory until it writes them (a single commit of the 100k-document Zipf corpus peaked at
2.1 GB RSS), so a larger corpus is committed in parts of this many records: each part
is an analysis segment of its kinds (no merge below ``MAX_SEGMENTS`` parts of a kind).
Corpora of up to this many records are committed once, as before."""
MEETINGS_API = MeetingsApi("17.6")


@dataclass(frozen=True, slots=True)
class BulkReport:
    """What a bulk build wrote: documents per kind, generation and commit stamp."""

    documents: dict[str, int]
    generation: str
    opstamp: int


@dataclass(frozen=True, slots=True)
class CorpusSource:
    """The small sections of a corpus and its records, whole or streamed from the file."""

    head: Corpus
    work_packages: Iterable[SandboxWorkPackage]
    meetings: Iterable[SandboxMeeting]
    wiki_pages: Iterable[SandboxWikiPage]

    @classmethod
    def open(cls, path: Path) -> CorpusSource:
        """Streamed when the file has the canonical layout, else read whole."""
        try:
            head = read_head(path)
        except NotCanonicalError:
            whole = load_corpus_file(path)
            return cls(whole, whole.work_packages, whole.meetings, whole.wiki_pages)
        return cls(
            head,
            read_records(path, "work_packages", SandboxWorkPackage),
            read_records(path, "meetings", SandboxMeeting),
            read_records(path, "wiki_pages", SandboxWikiPage),
        )


def _project_known(store: SandboxStore, kind: str, record_id: int, project: int) -> None:
    if project not in store.projects:
        raise CorpusError(f"{kind} {record_id} refers to project {project}, which is missing")


def corpus_records(source: CorpusSource) -> Iterator[Record]:
    """Every record an admin's full sync of the corpus indexes, in the syncer's conversion
    and order (projects, work packages, meetings, wiki pages)."""
    store = SandboxStore(source.head)
    for project in store.projects.values():
        if project.active:  # the syncer lists active projects (archived ones hold nothing)
            yield project_record(Project.from_hal(project_resource(project)))
    statuses = [Status.from_hal(status_resource(s)) for s in store.statuses.values()]
    closed_by_status = closed_status_ids(statuses)
    for item in source.work_packages:
        _project_known(store, "work package", item.id, item.project)
        wp = WorkPackage.from_hal(work_package_resource(store, item))
        versions = journal_versions(item)
        activities = [
            Activity.from_hal(activity_resource(store, item, entry, versions[entry.id]))
            for entry in item.activities
        ]
        closed = resolve_status_closed(wp, closed_by_status)
        yield work_package_record(wp, activities, status_closed=closed)
    for source_meeting in source.meetings:
        _project_known(store, "meeting", source_meeting.id, source_meeting.project)
        meeting = Meeting.from_hal(meeting_resource(store, source_meeting, MEETINGS_API))
        ordered = sorted(source_meeting.agenda_items, key=lambda item: (item.position, item.id))
        items = tuple(
            AgendaItem.from_hal(agenda_item_resource(store, source_meeting, item, MEETINGS_API))
            for item in ordered
        )
        yield meeting_record(meeting, items)
    for page in source.wiki_pages:
        _project_known(store, "wiki page", page.id, page.project)
        yield wiki_page_record(WikiPage.from_hal(wiki_page_resource(store, page, with_text=True)))


@dataclass
class _Written:
    versions: dict[str, list[RecordVersion]]
    newest: datetime | None = None


def _write_all(source: CorpusSource, index: TenantIndex, commit_every: int) -> _Written:
    written = _Written({})
    batch: list[Record] = []
    uncommitted = 0
    for record in corpus_records(source):
        batch.append(record)
        kind = record.document.kind
        version = RecordVersion(record.id, record.updated_at, content_hash(record))
        written.versions.setdefault(kind, []).append(version)
        if kind == "work_package" and record.updated_at is not None:
            written.newest = max(written.newest or record.updated_at, record.updated_at)
        if len(batch) >= BATCH:
            index.upsert(batch)
            uncommitted += len(batch)
            batch = []
            if uncommitted >= commit_every:
                index.commit()  # the generation stays pinned and unpublished
                uncommitted = 0
    index.upsert(batch)
    return written


def bulk_build(
    corpus_path: Path, data_dir: Path, tenant: TenantConfig, *, commit_every: int = COMMIT_RECORDS
) -> BulkReport:
    """Index every record of the corpus file as *tenant* in *data_dir* (a fresh tenant),
    committing every *commit_every* records and once at the end.

    A corpus that cannot be read raises ``CorpusError`` naming the record; the run is then
    recorded as failed and the unpublished generation removed, as a failed sync leaves it.
    """
    source = CorpusSource.open(corpus_path)
    state = StateStore.for_tenant(data_dir, tenant.name)
    try:
        run = state.start_run("full")
        index = TenantIndex.create_generation(index_directory(data_dir, tenant.name))
        try:
            written = _write_all(source, index, commit_every)
            info = index.commit()
            index.publish()
        except BaseException as exc:
            state.fail_run(run.id, f"{type(exc).__name__}: {exc}")
            index.discard()
            raise
        finally:
            index.close()
        with state.transaction():
            for kind, known in written.versions.items():
                state.upsert_known(kind, known)
            if written.newest is not None:
                state.set_high_water("work_packages", written.newest)
            state.set_index_pointer(
                IndexPointer(info.generation, SCHEMA_VERSION, info.opstamp, utc_now())
            )
            state.finish_run(run.id, requests=0, index_opstamp=info.opstamp)
    finally:
        state.close()
    documents = {kind: len(known) for kind, known in written.versions.items()}
    return BulkReport(documents, info.generation, info.opstamp)
