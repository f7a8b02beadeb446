"""A work package's relations and attachment names, read live when asked for.

They are not indexed (reading them would cost two requests per work package on every
sync), so ``get_work_package`` with ``detail: full`` reads them for the one record shown;
a server that cannot answer leaves the record as it is, with a note.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from opindex.envelope import RecordResponse, RelationOut
from opindex.errors import OpenProjectError

if TYPE_CHECKING:
    from opindex.openproject import OpenProjectClient, Relation


def relation_out(relation: Relation, work_package_id: int) -> RelationOut:
    """*relation* seen from *work_package_id*: its type and the other work package."""
    outgoing = relation.from_wp is not None and relation.from_wp.id == work_package_id
    other = relation.to_wp if outgoing else relation.from_wp
    kind = relation.type if outgoing else (relation.reverse_type or relation.type)
    return RelationOut(
        type=kind,
        id=other.id if other is not None else None,
        title=other.name if other is not None else None,
    )


async def with_links(client: OpenProjectClient, response: RecordResponse) -> RecordResponse:
    """*response* (a work package) with its relations and attachment names."""
    record_id = response.record.id
    try:
        relations, attachments = await asyncio.gather(
            client.work_package_relations(record_id),
            client.work_package_attachments(record_id),
        )
    except OpenProjectError as exc:
        response.meta.notes.append(f"relations and attachments could not be read ({exc})")
        return response
    return response.model_copy(
        update={
            "relations": [relation_out(relation, record_id) for relation in relations],
            "attachments": [attachment.file_name for attachment in attachments],
        }
    )
