"""What one sync run changed, held in memory until the index commit, then stored at once."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from opindex.records import Record
from opindex.search import Kind
from opindex.state import (
    ExtractionRow,
    KindCounts,
    KnownRecord,
    RecordVersion,
    StateStore,
    WikiDiscovery,
)

PROJECT: Kind = "project"
"""Kind under which the visible projects are remembered among the known records."""

KnownByKind = dict[str, dict[int, KnownRecord]]


def content_hash(record: Record) -> str:
    """A stable fingerprint of everything a record stores (fields, title, attributes)."""
    document = record.document
    payload: dict[str, Any] = {
        "kind": document.kind,
        "id": document.id,
        "fields": {
            name: [[value.text, value.ref] for value in values]
            for name, values in sorted(document.fields.items())
        },
        "title": record.title,
        "project": [record.project_id, record.project_name],
        "updated_at": None if record.updated_at is None else record.updated_at.isoformat(),
        "attributes": dict(sorted(record.attributes.items())),
    }
    encoded = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(encoded.encode("utf-8")).hexdigest()[:32]


@dataclass
class PendingChanges:
    """State changes implied by the index writes of one run.

    The index receives writes as the run goes (uncommitted); everything the state must
    learn about them waits here and is stored by :meth:`apply` in the same transaction
    that records the new index commit. Nothing here reaches the database if the run
    fails, so high-water marks never advance past a commit that did not happen.
    """

    versions: dict[str, dict[int, RecordVersion]] = field(default_factory=dict)
    deleted: dict[str, set[int]] = field(default_factory=dict)
    seen: dict[str, set[int]] = field(default_factory=dict)
    written: dict[str, int] = field(default_factory=dict)
    high_water: dict[str, datetime] = field(default_factory=dict)
    wiki_discovery: WikiDiscovery | None = None
    capabilities: Mapping[str, Any] | None = None
    """Top-level keys of the stored capabilities to replace (``server``, ``account``)."""
    replace_known: bool = False
    extractions: list[ExtractionRow] = field(default_factory=list)
    """Attachment extractions of this run (``opindex.sync.attachments``)."""

    def fetched(self, kind: str, version: RecordVersion, *, written: bool) -> None:
        """A record was read; ``written`` if its new content went to the index."""
        self.versions.setdefault(kind, {})[version.id] = version
        self.deleted.get(kind, set()).discard(version.id)
        if written:
            self.written[kind] = self.written.get(kind, 0) + 1

    def removed(self, kind: str, ids: Iterable[int]) -> None:
        """Records were deleted from the index."""
        bucket = self.deleted.setdefault(kind, set())
        versions = self.versions.get(kind, {})
        for record_id in ids:
            bucket.add(record_id)
            versions.pop(record_id, None)

    def still_exists(self, kind: str, ids: Iterable[int]) -> None:
        """A listing confirmed these records exist (not re-read)."""
        self.seen.setdefault(kind, set()).update(ids)

    def counts(self) -> dict[str, KindCounts]:
        """Per kind: documents written to and removed from the index."""
        kinds = sorted(set(self.written) | {k for k, ids in self.deleted.items() if ids})
        return {
            kind: KindCounts(
                upserted=self.written.get(kind, 0), deleted=len(self.deleted.get(kind, ()))
            )
            for kind in kinds
        }

    def apply(self, state: StateStore) -> None:
        """Store everything; call inside ``state.transaction()``."""
        if self.replace_known:
            state.clear_known()
        for kind, versions in self.versions.items():
            state.upsert_known(kind, versions.values())
        for kind, ids in self.deleted.items():
            state.delete_known(kind, ids)
        state.record_extractions(self.extractions)
        state.forget_extractions(self.deleted.get("attachment", ()))
        for kind, ids in self.seen.items():
            untouched = ids - set(self.versions.get(kind, {})) - self.deleted.get(kind, set())
            state.mark_known_seen(kind, untouched)
        for resource, value in self.high_water.items():
            state.set_high_water(resource, value)
        if self.wiki_discovery is not None:
            state.set_wiki_discovery(self.wiki_discovery)
        if self.capabilities is not None:
            current = state.get_capabilities()
            merged = dict(current.data) if current is not None else {}
            merged.update(self.capabilities)
            state.set_capabilities(merged)


def load_known(state: StateStore, kinds: Iterable[str]) -> KnownByKind:
    """The known records of each kind, by id."""
    return {kind: state.known_records(kind) for kind in kinds}
