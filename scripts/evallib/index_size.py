"""Index bytes on disk per byte of indexed text, for a cached benchmark tenant."""

from __future__ import annotations

import json
from typing import Any

from evallib.tenant_data import TenantData
from opindex.index import TenantIndex
from opindex.search.document import KINDS
from opindex.sync import index_directory

TARGET_BYTES_PER_TEXT_BYTE = 1.5
_CACHE = "text-bytes.json"


def text_bytes(index: TenantIndex) -> int:
    """UTF-8 bytes of every field value of every indexed record."""
    total = 0
    for kind in KINDS:
        for record_id in index.all_ids(kind):
            record = index.get(kind, record_id)
            if record is None:
                continue
            for values in record.document.fields.values():
                total += sum(len(value.text.encode("utf-8")) for value in values)
    return total


def index_size(tenant: TenantData) -> dict[str, Any]:
    """Bytes on disk of the tenant's live index generation (Tantivy files, analysis store,
    vocabulary), bytes of the text it indexes, and their ratio. The text count is kept
    beside the cached tenant (a cached tenant never changes; at 1M it takes a minute)."""
    cache = tenant.data_dir / _CACHE
    with TenantIndex(index_directory(tenant.data_dir, tenant.tenant)) as index:
        stats = index.stats()
        counted: dict[str, Any] = {}
        if cache.is_file():
            counted = json.loads(cache.read_text(encoding="utf-8"))
        if counted.get("generation") != stats.generation:
            counted = {"generation": stats.generation, "text_bytes": text_bytes(index)}
            cache.write_text(json.dumps(counted), encoding="utf-8")
    text = int(counted["text_bytes"])
    return {
        "bytes_on_disk": stats.bytes_on_disk,
        "text_bytes": text,
        "documents": stats.documents,
        "segments": stats.segments,
        "bytes_per_text_byte": stats.bytes_on_disk / text if text else None,
    }
