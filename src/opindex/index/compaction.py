"""Compaction: a generation's records copied into a fresh one in a single commit.

A full sync commits its fresh generation every few hundred records (checkpoints), and
Tantivy's merge policy leaves up to seven of those segments unmerged, and the analysis
store one file per commit until its own merge. Every Tantivy segment of an open searcher
keeps its own cache of decompressed doc-store blocks (up to 100 blocks of 16 KiB;
tantivy-py 0.27 offers no setting for it) and its own term dictionary, and every
analysis file its own tables, so a server holding many tenants pays for each of them
(DECISIONS D140). A copy written in one commit has one of each.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Final

import tantivy

from opindex.index import schema as s
from opindex.index.generation_index import Snapshot, tantivy_errors
from opindex.index.index_filters import kind_query
from opindex.index.tenant_index import TenantIndex
from opindex.records import Record
from opindex.search import KINDS

COMPACT_BATCH: Final = 1000
"""Records read and written per upsert call (bounds what the reading side holds)."""
COMPACT_MAX_RECORDS: Final = 25_000
"""Larger generations are published as their checkpoints left them: the single commit
holds every copied record's analysed values until it writes them (a bulk build of the
benchmarks' long Zipf records held 2.1 GB at 100k records, so up to 0.5 GB here and
about 20 GB at 1M), and a large
tenant is one of few, whose segments' caches matter less than a many-tenant host's."""


def compacted(
    index: TenantIndex, batch: int = COMPACT_BATCH, limit: int = COMPACT_MAX_RECORDS
) -> TenantIndex | None:
    """A new, committed, unpublished generation beside *index* holding every record of
    *index*, written in one commit (one segment, unless the writer's heap fills), or None
    when *index* has one segment or none, or more than *limit* records. The records,
    their analysis and every search answer are the same; Tantivy's doc addresses and the
    vocabulary's token numbers are not. Publish it (that removes the older generations)
    or discard it; on an error the copy is discarded and the error raised."""
    stats = index.stats()
    if stats.segments <= 1 or stats.documents > limit:
        return None
    snap = index._snapshot()  # one searcher for the whole copy: the commit it names
    copy = TenantIndex.create_generation(index.directory)
    try:
        for kind in KINDS:
            for records in _batches(snap, kind, batch):
                copy.upsert(records)
        copy.commit()
    except BaseException:
        copy.discard()
        raise
    return copy


def _batches(snap: Snapshot, kind: str, batch: int) -> Iterator[list[Record]]:
    """The records of *kind* in *snap*, *batch* at a time in ascending id order: each batch
    is a search for the ids above the last one read, so what is held stays bounded."""
    schema = snap.generation.schema
    after: int | None = None
    while True:
        query = kind_query(schema, kind)
        if after is not None:
            above = tantivy.Query.range_query(
                schema, s.ID, tantivy.FieldType.Integer, lower_bound=after + 1, upper_bound=None
            )
            query = tantivy.Query.boolean_query(
                [(tantivy.Occur.Must, query), (tantivy.Occur.Must, above)]
            )
        with tantivy_errors(snap.generation.path, "read"):
            hits = snap.searcher.search(
                query, batch, order_by_field=s.ID, order=tantivy.Order.Asc
            ).hits
            records = [snap.record(address) for _, address in hits]
        if not records:
            return
        yield records
        after = records[-1].id
