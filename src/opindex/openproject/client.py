"""The async OpenProject API v3 client: identity check first, then typed reads."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from types import TracebackType
from typing import IO, Any, Self

import httpx

from opindex.errors import AuthenticationError, InvalidArgumentError, NotFoundError
from opindex.openproject.api_models import (
    Activity,
    Project,
    Relation,
    Status,
    User,
    WikiPage,
    WorkPackage,
    WorkPackageType,
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
from opindex.openproject.hal import embedded_elements
from opindex.openproject.http_session import ApiSession, Download, JsonObject, Sleep
from opindex.openproject.meeting_models import AgendaItem, Meeting, Outcome
from opindex.openproject.outage import OutageMemory
from opindex.openproject.paging import PagedQuery, Parse, T
from opindex.openproject.query import (
    Filter,
    SortBy,
    filters_json,
    select_param,
    sort_by_json,
)
from opindex.openproject.retry import RetryPolicy, current_time

API = "/api/v3"
DEFAULT_PAGE_SIZE = 1000
BY_ID: SortBy = (("id", "asc"),)


class OpenProjectClient:
    """Reads one OpenProject instance as one account.

    The first request of a client is always ``GET /api/v3/users/me``: a credential that
    does not resolve to a real account (including the anonymous user a public instance
    serves when the Authorization header is lost) raises ``AuthenticationError`` before any
    data is read. ``expected_user_id`` / ``expected_login`` additionally pin the account.
    With an ``outage`` memory, requests fail at once for a while after OpenProject proved
    unreachable (see ``opindex.openproject.outage``).

    Use as ``async with OpenProjectClient(url, key) as client: ...`` or call ``aclose()``.
    """

    def __init__(
        self,
        base_url: str,
        api_key: str | ApiKeyCredential,
        *,
        auth_scheme: AuthScheme = "basic",
        transport: httpx.AsyncBaseTransport | None = None,
        timeout: float = 30.0,
        retry: RetryPolicy | None = None,
        sleep: Sleep | None = None,
        clock: Callable[[], float] = current_time,
        rand: Callable[[], float] = random.random,
        expected_user_id: int | None = None,
        expected_login: str | None = None,
        outage: OutageMemory | None = None,
    ) -> None:
        credential = (
            api_key
            if isinstance(api_key, ApiKeyCredential)
            else ApiKeyCredential(api_key, auth_scheme)
        )
        self._session = ApiSession(
            base_url,
            credential,
            transport=transport,
            timeout=timeout,
            retry=retry,
            sleep=sleep,
            clock=clock,
            rand=rand,
            outage=outage,
        )
        self.expected_user_id = expected_user_id
        self.expected_login = expected_login
        self._identity: User | None = None
        self._identity_lock = asyncio.Lock()

    def __repr__(self) -> str:
        return f"OpenProjectClient(base_url={self.base_url!r}, credential=***)"

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close the connection pool."""
        await self._session.aclose()

    @property
    def base_url(self) -> str:
        """The instance URL (normalized: no trailing slash, no ``/api/v3``)."""
        return self._session.base_url

    @property
    def request_count(self) -> int:
        """HTTP requests sent so far, retries and the identity check included."""
        return self._session.request_count

    @property
    def requests_by_path(self) -> Mapping[str, int]:
        """Requests sent so far per route (ids replaced by ``{id}``)."""
        return dict(self._session.requests_by_path)

    @property
    def server_date(self) -> datetime | None:
        """The server's clock as its latest successful response stated (``Date`` header)."""
        return self._session.server_date

    @property
    def identity(self) -> User | None:
        """The verified account, once the identity check has run."""
        return self._identity

    # --- identity ---------------------------------------------------------------------

    async def me(self) -> User:
        """``GET /api/v3/users/me``, verified: raises ``AuthenticationError`` for the
        anonymous user or an account other than the expected one."""
        url = f"{self.base_url}{API}/users/me"
        try:
            data = await self._session.get_json(f"{API}/users/me")
        except NotFoundError as exc:
            raise NotFoundError(
                f"GET {url} answered 404: {self.base_url} is not the root of an OpenProject "
                "with API v3; check base_url (the server root, e.g. "
                "https://openproject.example.org, without /api/v3)",
                status=404,
                error_identifier=exc.error_identifier,
            ) from exc
        except AuthenticationError as exc:
            raise AuthenticationError(
                f"GET {url} answered 401: OpenProject rejected the API key; check the "
                "tenant's api_key or api_key_env, its auth setting (basic sends "
                "apikey:<key>, bearer sends the key as a token), and that an administrator "
                "enabled API tokens (Administration > API and webhooks)",
                status=401,
                error_identifier=exc.error_identifier,
            ) from exc
        user = self._verified_user(data)
        self._identity = user
        return user

    async def ensure_identity(self) -> User:
        """Run the identity check once per client (concurrent callers share it)."""
        if self._identity is not None:
            return self._identity
        async with self._identity_lock:
            if self._identity is None:
                await self.me()
            assert self._identity is not None
            return self._identity

    def _verified_user(self, data: Mapping[str, Any]) -> User:
        where = f"the credential for {self.base_url}"
        if is_anonymous(data):
            raise AuthenticationError(
                f"{where} resolved to the anonymous user; the API key was not accepted or not sent"
            )
        user = User.from_hal(data)
        if self.expected_user_id is not None and user.id != self.expected_user_id:
            raise AuthenticationError(
                f"{where} belongs to user id {user.id}, expected {self.expected_user_id}"
            )
        if self.expected_login is not None and user.login != self.expected_login:
            raise AuthenticationError(
                f"{where} belongs to login {user.login!r}, expected {self.expected_login!r}"
            )
        return user

    async def get_json(self, path: str, params: Mapping[str, str] | None = None) -> JsonObject:
        """GET an API path (``/api/v3/...``) after the identity check."""
        await self.ensure_identity()
        return await self._session.get_json(path, params)

    async def _fetch(self, path: str, params: Mapping[str, str]) -> JsonObject:
        return await self.get_json(path, params)

    def paged(
        self,
        path: str,
        parse: Parse[T],
        params: Mapping[str, str] | None = None,
        page_size: int | None = DEFAULT_PAGE_SIZE,
    ) -> PagedQuery[T]:
        """A walk over any collection endpoint."""
        return PagedQuery(self._fetch, path, params or {}, parse, page_size=page_size)

    # --- projects, statuses -----------------------------------------------------------

    def projects(
        self,
        filters: Sequence[Filter] = (),
        sort_by: SortBy = BY_ID,
        page_size: int = DEFAULT_PAGE_SIZE,
    ) -> PagedQuery[Project]:
        """Visible projects (``GET /api/v3/projects``), archived ones only if filtered for."""
        params = {"filters": filters_json(filters), "sortBy": sort_by_json(sort_by)}
        return self.paged(f"{API}/projects", Project.from_hal, params, page_size)

    async def statuses(self) -> list[Status]:
        """All work package statuses (``GET /api/v3/statuses``) with their closed flag."""
        return await self.paged(f"{API}/statuses", Status.from_hal, page_size=None).collect()

    async def types(self) -> list[WorkPackageType]:
        """All work package types (``GET /api/v3/types``)."""
        return await self.paged(f"{API}/types", WorkPackageType.from_hal, page_size=None).collect()

    async def principals(self) -> list[User]:
        """The users the account can see (``GET /api/v3/principals``, users only)."""
        params = {"filters": filters_json([Filter.of("type", "=", ["User"])])}
        return await self.paged(f"{API}/principals", User.from_hal, params).collect()

    # --- work packages ----------------------------------------------------------------

    def work_packages(
        self,
        filters: Sequence[Filter] = (),
        sort_by: SortBy = BY_ID,
        page_size: int = DEFAULT_PAGE_SIZE,
        select: Sequence[str] | None = None,
    ) -> PagedQuery[WorkPackage]:
        """Work packages matching *filters* — closed ones included.

        The filter list is always sent (``[]`` when empty): without it the server silently
        returns open work packages only. *select* trims the payload (``elements/id`` and
        ``total`` are always added); trimmed elements parse with the other fields empty.
        """
        params = {"filters": filters_json(filters), "sortBy": sort_by_json(sort_by)}
        if select is not None:
            params["select"] = select_param(select)
        return self.paged(f"{API}/work_packages", WorkPackage.from_hal, params, page_size)

    def work_package_ids(
        self,
        filters: Sequence[Filter] = (),
        page_size: int = DEFAULT_PAGE_SIZE,
        sort_by: SortBy = BY_ID,
    ) -> PagedQuery[WorkPackage]:
        """An id sweep: only ``id`` and ``updatedAt`` of every matching work package."""
        return self.work_packages(
            filters, sort_by, page_size, select=("elements/id", "elements/updatedAt")
        )

    async def work_package(self, work_package_id: int) -> WorkPackage:
        """One work package; ``NotFoundError`` if deleted or invisible."""
        data = await self.get_json(f"{API}/work_packages/{_positive(work_package_id)}")
        return WorkPackage.from_hal(data)

    async def work_package_activities(self, work_package_id: int) -> list[Activity]:
        """Every journal entry of a work package (an unpaginated collection)."""
        path = f"{API}/work_packages/{_positive(work_package_id)}/activities"
        return await self.paged(path, Activity.from_hal, page_size=None).collect()

    # --- meetings ---------------------------------------------------------------------

    async def work_package_relations(self, work_package_id: int) -> list[Relation]:
        """The relations a work package takes part in."""
        path = f"{API}/work_packages/{_positive(work_package_id)}/relations"
        return await self.paged(path, Relation.from_hal, page_size=None).collect()

    async def work_package_attachments(self, work_package_id: int) -> list[Attachment]:
        """The files attached to a work package."""
        return await self.attachments("work_package", work_package_id)

    # --- news, documents, versions, attachments --------------------------------------

    def news(self, page_size: int = DEFAULT_PAGE_SIZE) -> PagedQuery[News]:
        """Every visible news item (``GET /api/v3/news``), by id."""
        params = {"sortBy": sort_by_json(BY_ID)}
        return self.paged(f"{API}/news", News.from_hal, params, page_size)

    def documents(self, page_size: int = DEFAULT_PAGE_SIZE) -> PagedQuery[Document]:
        """Every visible document (``GET /api/v3/documents``), by id."""
        params = {"sortBy": sort_by_json(BY_ID)}
        return self.paged(f"{API}/documents", Document.from_hal, params, page_size)

    def versions(self, page_size: int = DEFAULT_PAGE_SIZE) -> PagedQuery[Version]:
        """Every version the account can see (``GET /api/v3/versions``)."""
        return self.paged(f"{API}/versions", Version.from_hal, page_size=page_size)

    async def attachments(self, kind: ContainerKind, container_id: int) -> list[Attachment]:
        """The files attached to one record (``GET /api/v3/{kind}/{id}/attachments``)."""
        path = f"{API}/{CONTAINER_PATHS[kind]}/{_positive(container_id)}/attachments"
        return await self.paged(path, Attachment.from_hal, page_size=None).collect()

    async def download_attachment(
        self, attachment_id: int, sink: IO[bytes], max_bytes: int
    ) -> Download:
        """The file of one attachment into *sink*, at most *max_bytes* (see
        ``ApiSession.download``)."""
        await self.ensure_identity()
        path = f"{API}/attachments/{_positive(attachment_id)}/content"
        return await self._session.download(path, sink, max_bytes)

    def meetings(
        self,
        filters: Sequence[Filter] = (),
        sort_by: SortBy | None = None,
        page_size: int = DEFAULT_PAGE_SIZE,
    ) -> PagedQuery[Meeting]:
        """Visible meetings (``GET /api/v3/meetings``), past and future."""
        params = {"filters": filters_json(filters)}
        if sort_by is not None:
            params["sortBy"] = sort_by_json(sort_by)
        return self.paged(f"{API}/meetings", Meeting.from_hal, params, page_size)

    async def meeting(self, meeting_id: int) -> Meeting:
        """One meeting; ``NotFoundError`` if deleted or invisible."""
        return Meeting.from_hal(await self.get_json(f"{API}/meetings/{_positive(meeting_id)}"))

    async def meeting_agenda_items(
        self, meeting_id: int, *, fetch_outcomes: bool = True
    ) -> list[AgendaItem]:
        """The agenda items of a meeting (17.4+, unpaginated), with their outcomes.

        Outcomes come embedded when the server embeds them; otherwise, when an item links
        outcomes (17.6+) and *fetch_outcomes* is set, they are fetched per item. Items of a
        server without outcomes keep ``outcomes=None``. A server without agenda items
        (< 17.4) answers ``NotFoundError``.
        """
        path = f"{API}/meetings/{_positive(meeting_id)}/agenda_items"
        items = await self.paged(path, AgendaItem.from_hal, page_size=None).collect()
        if not fetch_outcomes:
            return items
        resolved: list[AgendaItem] = []
        for item in items:
            if item.outcomes is None and item.outcomes_linked:
                if item.outcome_link_count == 0:
                    item = item.model_copy(update={"outcomes": ()})
                else:
                    try:
                        outcomes = await self.agenda_item_outcomes(meeting_id, item.id)
                    except NotFoundError:
                        outcomes = None
                    if outcomes is not None:
                        item = item.model_copy(update={"outcomes": tuple(outcomes)})
            resolved.append(item)
        return resolved

    async def agenda_item_outcomes(self, meeting_id: int, item_id: int) -> list[Outcome]:
        """``GET /api/v3/meetings/{mid}/agenda_items/{aid}/outcomes`` (17.6+)."""
        path = f"{API}/meetings/{_positive(meeting_id)}/agenda_items/{_positive(item_id)}/outcomes"
        data = await self.get_json(path)
        return [Outcome.from_hal(entry, item_id) for entry in embedded_elements(data)]

    # --- wiki -------------------------------------------------------------------------

    async def wiki_page(self, page_id: int) -> WikiPage:
        """One wiki page; ``NotFoundError`` if missing or invisible."""
        return WikiPage.from_hal(await self.get_json(f"{API}/wiki_pages/{_positive(page_id)}"))

    def wiki_pages(
        self, project_id: int | None = None, page_size: int = DEFAULT_PAGE_SIZE
    ) -> PagedQuery[WikiPage]:
        """The wiki page list endpoint, where the server has one (see capabilities);
        released servers answer ``NotFoundError``."""
        path = (
            f"{API}/wiki_pages"
            if project_id is None
            else f"{API}/projects/{_positive(project_id)}/wiki_pages"
        )
        return self.paged(path, WikiPage.from_hal, page_size=page_size)


def is_anonymous(data: Mapping[str, Any]) -> bool:
    """Whether a ``users/me`` answer is the anonymous user rather than an account.

    For its own account the API always shows the login, and real logins are never empty;
    the anonymous user has an empty login (or an explicit anonymous type).
    """
    kind = data.get("_type")
    if isinstance(kind, str) and kind.lower().startswith("anonymous"):
        return True
    user_id = data.get("id")
    if not isinstance(user_id, int) or isinstance(user_id, bool) or user_id <= 0:
        return True
    login = data.get("login")
    return not isinstance(login, str) or not login.strip()


def _positive(value: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise InvalidArgumentError(f"OpenProject ids are positive integers, got {value!r}")
    return value
