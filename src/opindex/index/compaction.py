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

from typing import Final

from opindex.index.tenant_index import TenantIndex
from opindex.search import KINDS

COMPACT_BATCH: Final = 1000
"""Records read and written per upsert call (bounds what one step holds in memory)."""


def compacted(index: TenantIndex, batch: int = COMPACT_BATCH) -> TenantIndex | None:
    """A new, committed, unpublished generation beside *index* holding every record of
    *index*, written in one commit (one segment, unless the writer's heap fills), or None
    when *index* has one segment or none. The records, their analysis and every search
    answer are the same; Tantivy's doc addresses and the vocabulary's token numbers are
    not. Publish it (that removes the older generations) or discard it; on an error the
    copy is discarded and the error raised."""
    if index.stats().segments <= 1:
        return None
    copy = TenantIndex.create_generation(index.directory)
    try:
        for kind in KINDS:
            ids = index.all_ids(kind)
            for start in range(0, len(ids), batch):
                chunk = (index.get(kind, record_id) for record_id in ids[start : start + batch])
                copy.upsert(record for record in chunk if record is not None)
        copy.commit()
    except BaseException:
        copy.discard()
        raise
    return copy
