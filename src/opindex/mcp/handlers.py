"""The work behind each tool, as plain functions over the service (no MCP SDK here).

A caller is either a configured tenant (index and live path) or, when the server allows
it, an unknown credential that may only search live. Reads other than search take a
tenant: their answers come from the tenant's index or its account (see ``LIVE_ONLY``).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from opindex.envelope import (
    ActivityListResponse,
    MatchModeName,
    RecordResponse,
    SearchRequest,
    SearchResponse,
    StatusFilter,
    WorkPackageListResponse,
)
from opindex.errors import InvalidArgumentError
from opindex.mcp.app_state import AppState
from opindex.mcp.callers import Caller
from opindex.mcp.status_report import IndexStatusReport, status_report
from opindex.search.document import Kind
from opindex.service.named_filters import FilterNames

LIVE_ONLY = (
    "this API key matches no tenant configured on the opindex server, so only the search "
    "tools (answered live with the key itself) are available to it; ask the user to have a "
    "tenant configured for the key to read records, list work packages or see index status"
)


@dataclass(frozen=True, slots=True)
class WorkPackageFilters:
    """The server-side filters of ``openproject_list_work_packages``."""

    project_id: int | None = None
    subject: str | None = None
    status: StatusFilter | list[int] = "open"
    type_id: int | None = None
    assignee_id: int | None = None
    limit: int = 20
    updated_after: datetime | None = None
    updated_before: datetime | None = None


async def search(
    state: AppState, caller: Caller, request: SearchRequest, names: FilterNames | None = None
) -> SearchResponse:
    """Ranked results: the tenant's index or live path, or live with the caller's own key.
    *names* (filters given by name) are resolved against what the account sees."""
    if caller.tenant is not None:
        return await state.service.search(request, tenant=caller.tenant, names=names)
    if caller.live_credential is None:
        raise InvalidArgumentError("a search needs a tenant or a credential")
    return await state.service.search_with_credential(
        request, caller.live_credential.reveal(), names=names
    )


async def list_activities(
    state: AppState,
    tenant: str,
    work_package_id: int,
    query: str | None,
    match_mode: MatchModeName,
) -> ActivityListResponse:
    """A work package's activities, ranked against ``query`` when one is given."""
    return await state.service.list_activities(tenant, work_package_id, query, match_mode)


async def list_work_packages(
    state: AppState, tenant: str, filters: WorkPackageFilters, names: FilterNames | None = None
) -> WorkPackageListResponse:
    """OpenProject's own filtered listing, newest first."""
    return await state.service.list_work_packages(
        tenant,
        subject=filters.subject,
        project_id=filters.project_id,
        status=filters.status,
        type_id=filters.type_id,
        assignee_id=filters.assignee_id,
        limit=filters.limit,
        names=names,
        updated_after=filters.updated_after,
        updated_before=filters.updated_before,
    )


async def get_record(
    state: AppState, tenant: str, kind: Kind, record_id: int, *, links: bool = False
) -> RecordResponse:
    """One whole record, from the fresh index or live (*links*: relations, attachments)."""
    return await state.service.get_record(tenant, kind, record_id, links=links)


def index_status(state: AppState, tenant: str) -> IndexStatusReport:
    """Freshness and document counts of the caller's tenant."""
    intervals = {}
    if state.daemon is not None:
        intervals = {
            name: state.config.tenant(name).sync_interval_seconds for name in state.daemon.tenants
        }
    return status_report(state.service.status(tenant), intervals)
