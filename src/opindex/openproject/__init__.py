"""The only code that talks HTTP to OpenProject: auth, paging, filters, errors, retries, models.

The client and the HTTP session load on first use (with httpx): the models, queries and
credentials are all that a search answered from the index needs (DECISIONS D159).
"""

from typing import TYPE_CHECKING

from opindex.lazy_names import lazy_getattr
from opindex.openproject.api_models import (
    Activity,
    Project,
    Relation,
    Status,
    User,
    WikiPage,
    WorkPackage,
    closed_status_ids,
    resolve_status_closed,
)
from opindex.openproject.capabilities import (
    ServerCapabilities,
    detect_capabilities,
    stored_capabilities,
)
from opindex.openproject.content_resources import (
    CONTAINER_PATHS,
    Attachment,
    ContainerKind,
    Document,
    News,
    Version,
)
from opindex.openproject.credentials import ApiKeyCredential, AuthScheme
from opindex.openproject.hal import Ref, href_id
from opindex.openproject.meeting_models import AgendaItem, Meeting, Outcome
from opindex.openproject.outage import OutageMemory
from opindex.openproject.paging import Page, PagedQuery
from opindex.openproject.query import Filter, SortBy, equals, iso_utc, updated_since
from opindex.openproject.retry import NO_RETRY, RetryPolicy

if TYPE_CHECKING:
    from opindex.openproject.client import OpenProjectClient, is_anonymous
    from opindex.openproject.http_session import Download, normalize_base_url

_HOMES = {
    "OpenProjectClient": ".client",
    "is_anonymous": ".client",
    "Download": ".http_session",
    "normalize_base_url": ".http_session",
}

__all__ = [
    "CONTAINER_PATHS",
    "NO_RETRY",
    "Activity",
    "AgendaItem",
    "ApiKeyCredential",
    "Attachment",
    "AuthScheme",
    "ContainerKind",
    "Document",
    "Download",
    "Filter",
    "Meeting",
    "News",
    "OpenProjectClient",
    "OutageMemory",
    "Outcome",
    "Page",
    "PagedQuery",
    "Project",
    "Ref",
    "Relation",
    "RetryPolicy",
    "ServerCapabilities",
    "SortBy",
    "Status",
    "User",
    "Version",
    "WikiPage",
    "WorkPackage",
    "closed_status_ids",
    "detect_capabilities",
    "equals",
    "href_id",
    "is_anonymous",
    "iso_utc",
    "normalize_base_url",
    "resolve_status_closed",
    "stored_capabilities",
    "updated_since",
]

__getattr__ = lazy_getattr(__name__, _HOMES, globals())
