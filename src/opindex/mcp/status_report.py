"""The index status tool's answer: freshness, documents and background sync per tenant."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

from opindex.disclosure import public_run_error
from opindex.service import TenantStatus


class TenantIndexStatus(BaseModel):
    """One tenant's index, as the status tool reports it (camelCase on the wire)."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True)

    tenant: str
    state: Literal["fresh", "stale", "missing", "damaged", "syncing"]
    freshness: Literal["fresh", "stale", "missing", "damaged"]
    last_sync_at: datetime | None = None
    age_seconds: float | None = None
    max_staleness_seconds: int
    documents: dict[str, int] = Field(default_factory=dict)
    index_bytes: int | None = None
    last_error: str | None = None
    syncing_since: datetime | None = None
    background_sync_seconds: int | None = Field(
        default=None, description="Interval of this server's background sync (None: off)."
    )
    problems: list[str] = Field(default_factory=list)
    attached_files: dict[str, int] = Field(
        default_factory=dict,
        description="Attached files by how their text was read (extracted, skipped, …).",
    )
    skipped_files: dict[str, int] = Field(
        default_factory=dict, description="Attached files not read, by reason (too_large, …)."
    )


class IndexStatusReport(BaseModel):
    """The status tool's answer: the caller's tenant(s)."""

    tenants: list[TenantIndexStatus]


def status_report(
    statuses: Sequence[TenantStatus], sync_intervals: Mapping[str, int]
) -> IndexStatusReport:
    """The report for ``statuses``; ``sync_intervals``: tenant → this server's sync interval."""
    return IndexStatusReport(
        tenants=[_tenant_status(status, sync_intervals.get(status.tenant)) for status in statuses]
    )


def _tenant_status(status: TenantStatus, interval: int | None) -> TenantIndexStatus:
    return TenantIndexStatus(
        tenant=status.tenant,
        state=status.state,
        freshness=status.freshness,
        last_sync_at=status.last_sync_at,
        age_seconds=None if status.age_seconds is None else round(status.age_seconds, 1),
        max_staleness_seconds=status.max_staleness_seconds,
        documents=dict(status.documents),
        index_bytes=status.index_bytes,
        last_error=None if status.last_error is None else public_run_error(status.last_error),
        syncing_since=status.syncing.since if status.syncing is not None else None,
        background_sync_seconds=interval,
        problems=list(status.public_problems),
        attached_files=dict(status.attachments.get("by_outcome") or {}),
        skipped_files=dict(status.attachments.get("by_reason") or {}),
    )
