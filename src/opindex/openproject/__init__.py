"""The only code that talks HTTP to OpenProject: auth, paging, filters, errors, retries, models."""

from opindex.openproject.capabilities import ServerCapabilities, detect_capabilities
from opindex.openproject.client import OpenProjectClient, is_anonymous
from opindex.openproject.credentials import ApiKeyCredential, AuthScheme
from opindex.openproject.hal import Ref, href_id
from opindex.openproject.meeting_models import AgendaItem, Meeting, Outcome
from opindex.openproject.models import (
    Activity,
    Project,
    Status,
    User,
    WikiPage,
    WorkPackage,
    closed_status_ids,
    resolve_status_closed,
)
from opindex.openproject.paging import Page, PagedQuery
from opindex.openproject.query import Filter, SortBy, equals, iso_utc, updated_since
from opindex.openproject.retry import NO_RETRY, RetryPolicy

__all__ = [
    "NO_RETRY",
    "Activity",
    "AgendaItem",
    "ApiKeyCredential",
    "AuthScheme",
    "Filter",
    "Meeting",
    "OpenProjectClient",
    "Outcome",
    "Page",
    "PagedQuery",
    "Project",
    "Ref",
    "RetryPolicy",
    "ServerCapabilities",
    "SortBy",
    "Status",
    "User",
    "WikiPage",
    "WorkPackage",
    "closed_status_ids",
    "detect_capabilities",
    "equals",
    "href_id",
    "is_anonymous",
    "iso_utc",
    "resolve_status_closed",
    "updated_since",
]
