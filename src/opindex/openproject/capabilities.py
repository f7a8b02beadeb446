"""What a given OpenProject server exposes (meetings depth, outcomes, wiki text and lists)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field

from opindex.errors import NotFoundError, OpenProjectError, PermissionDeniedError
from opindex.openproject.meeting_models import AgendaItem

if TYPE_CHECKING:
    from opindex.openproject.client import OpenProjectClient

API = "/api/v3"
MEETINGS_TO_SCAN = 5
# "Endpoint does not exist" answers: 404 from OpenProject's router, 405 from some proxies.
_ABSENT_STATUSES = frozenset({404, 405})


class ServerCapabilities(BaseModel):
    """Feature flags detected on one server, stored as JSON in the state database.

    ``None`` means "could not tell": nothing visible to probe (no meeting with agenda
    items, no known wiki page). Detect again later; until then read defensively.
    """

    model_config = ConfigDict(frozen=True, extra="ignore")

    meetings: bool
    meeting_agenda_items: bool | None
    meeting_outcomes: bool | None
    wiki_list: bool
    wiki_text: bool | None
    detected_at: datetime = Field(default_factory=lambda: datetime.now(UTC))

    def to_json(self) -> str:
        """Serialize for the state database."""
        return self.model_dump_json()

    @classmethod
    def from_json(cls, text: str) -> ServerCapabilities:
        """Read back what ``to_json`` wrote."""
        return cls.model_validate_json(text)


def stored_capabilities(data: Mapping[str, Any]) -> ServerCapabilities | None:
    """The capabilities a sync stored (the ``server`` entry of the state's capabilities
    record), or None when there are none or they cannot be read."""
    server = data.get("server")
    if not isinstance(server, dict):
        return None
    try:
        return ServerCapabilities.model_validate(server)
    except ValueError:
        return None


async def detect_capabilities(
    client: OpenProjectClient, *, wiki_page_ids: Sequence[int] = ()
) -> ServerCapabilities:
    """Probe the server with a handful of cheap requests.

    *wiki_page_ids* are known wiki page ids (e.g. from the state database) used to check
    whether pages carry their ``text`` when the server has no wiki list endpoint.
    """
    meetings, agenda, outcomes = await _detect_meetings(client)
    wiki_list, listed_ids = await _detect_wiki_list(client)
    wiki_text = await _detect_wiki_text(client, [*listed_ids, *wiki_page_ids])
    return ServerCapabilities(
        meetings=meetings,
        meeting_agenda_items=agenda,
        meeting_outcomes=outcomes,
        wiki_list=wiki_list,
        wiki_text=wiki_text,
    )


async def _detect_meetings(client: OpenProjectClient) -> tuple[bool, bool | None, bool | None]:
    try:
        page = await anext(aiter(client.meetings(page_size=MEETINGS_TO_SCAN)))
    except (NotFoundError, PermissionDeniedError):
        return False, False, False
    except OpenProjectError as exc:
        if exc.status in _ABSENT_STATUSES:
            return False, False, False
        raise

    if not page.elements:
        # Nothing to probe directly: the meetings schema only exists from 17.4 on
        # (`GET /api/v3/meetings/schema`, the feature check OpenProject's API docs suggest to
        # non-admins). Its absence is not conclusive for every server: that stays "unknown".
        if await _probe_exists(client, f"{API}/meetings/schema"):
            return True, True, None
        return True, None, None

    saw_items = False
    for meeting in page.elements[:MEETINGS_TO_SCAN]:
        try:
            items = await client.meeting_agenda_items(meeting.id, fetch_outcomes=False)
        except OpenProjectError as exc:
            if exc.status in _ABSENT_STATUSES:
                return True, False, False
            raise
        if items:
            saw_items = True
            if _outcomes_exposed(items):
                return True, True, True
    # Agenda items exist; outcomes absent from every item seen means the server has none.
    return True, True, (False if saw_items else None)


def _outcomes_exposed(items: Sequence[AgendaItem]) -> bool:
    return any(item.outcomes is not None or item.outcomes_linked for item in items)


async def _detect_wiki_list(client: OpenProjectClient) -> tuple[bool, list[int]]:
    try:
        page = await anext(aiter(client.wiki_pages(page_size=1)))
    except PermissionDeniedError:
        return True, []
    except OpenProjectError as exc:
        if exc.status in _ABSENT_STATUSES:
            return False, []
        raise
    return True, [wiki.id for wiki in page.elements]


async def _detect_wiki_text(client: OpenProjectClient, page_ids: Sequence[int]) -> bool | None:
    for page_id in dict.fromkeys(page_ids):
        try:
            page = await client.wiki_page(page_id)
        except (NotFoundError, PermissionDeniedError):
            continue
        return page.text is not None
    return None


async def _probe_exists(client: OpenProjectClient, path: str) -> bool:
    try:
        await client.get_json(path)
    except PermissionDeniedError:
        return True
    except OpenProjectError as exc:
        if exc.status in _ABSENT_STATUSES:
            return False
        raise
    return True
