"""Capability detection against servers of different generations (MockTransport)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from fake_openproject import FakeOpenProject, collection, error_body, make_client

from opindex.errors import ServerError
from opindex.openproject import ServerCapabilities, detect_capabilities

MEETING_16 = {"_type": "Meeting", "id": 12, "title": "Weekly", "_links": {}}
MEETING_17 = {
    "_type": "Meeting",
    "id": 12,
    "title": "Weekly",
    "state": "open",
    "_links": {"agendaItems": {"href": "/api/v3/meetings/12/agenda_items"}, "participants": []},
}
ITEM_17_4 = {"_type": "MeetingAgendaItem", "id": 120, "title": "Hiring"}
OUTCOME = {"_type": "MeetingOutcome", "id": 1200, "kind": "information", "notes": {"raw": "ok"}}
ITEM_17_6 = {
    **ITEM_17_4,
    "_links": {"outcomes": [{"href": "/api/v3/meeting_outcomes/1200"}]},
    "_embedded": {"outcomes": [OUTCOME]},
}
WIKI_RELEASED = {"_type": "WikiPage", "id": 7, "title": "Runbook"}
WIKI_WITH_TEXT = {**WIKI_RELEASED, "text": {"format": "markdown", "raw": "Restart"}}


def server(
    meetings: list[dict[str, Any]] | None,
    agenda: list[dict[str, Any]] | None = None,
    *,
    wiki_list: bool = False,
    wiki: dict[str, Any] | None = None,
) -> FakeOpenProject:
    fake = FakeOpenProject()
    if meetings is not None:
        fake.route("/api/v3/meetings", collection(meetings, page_size=5, offset=1))
    if agenda is not None:
        fake.route("/api/v3/meetings/12/agenda_items", collection(agenda))
    if wiki is not None:
        fake.route(f"/api/v3/wiki_pages/{wiki['id']}", wiki)
        if wiki_list:
            fake.route("/api/v3/wiki_pages", collection([wiki], page_size=1, offset=1))
    return fake


async def detect(fake: FakeOpenProject, **options: Any) -> ServerCapabilities:
    async with make_client(fake) as client:
        return await detect_capabilities(client, **options)


async def test_openproject_16_has_meetings_without_agenda() -> None:
    caps = await detect(server([MEETING_16]))
    assert caps.meetings is True
    assert caps.meeting_agenda_items is False
    assert caps.meeting_outcomes is False


async def test_openproject_17_4_has_agenda_items_without_outcomes() -> None:
    caps = await detect(server([MEETING_17], [ITEM_17_4]))
    assert (caps.meeting_agenda_items, caps.meeting_outcomes) == (True, False)


async def test_openproject_17_6_has_outcomes() -> None:
    caps = await detect(server([MEETING_17], [ITEM_17_6]))
    assert (caps.meeting_agenda_items, caps.meeting_outcomes) == (True, True)


async def test_linked_but_not_embedded_outcomes_are_fetched_per_item() -> None:
    linked_only = {**ITEM_17_6}
    del linked_only["_embedded"]
    fake = server([MEETING_17], [linked_only])
    fake.route("/api/v3/meetings/12/agenda_items/120/outcomes", collection([OUTCOME]))
    async with make_client(fake) as client:
        (item,) = await client.meeting_agenda_items(12)
    assert item.outcomes is not None
    assert [(o.id, o.notes, o.agenda_item_id) for o in item.outcomes] == [(1200, "ok", 120)]


async def test_meeting_without_agenda_items_leaves_outcomes_unknown() -> None:
    caps = await detect(server([MEETING_17], []))
    assert (caps.meeting_agenda_items, caps.meeting_outcomes) == (True, None)


async def test_no_visible_meeting_falls_back_to_the_schema_probe() -> None:
    with_schema = server([]).route("/api/v3/meetings/schema", {"_type": "Schema"})
    caps = await detect(with_schema)
    assert (caps.meetings, caps.meeting_agenda_items, caps.meeting_outcomes) == (True, True, None)
    caps = await detect(server([]))
    assert (caps.meetings, caps.meeting_agenda_items, caps.meeting_outcomes) == (True, None, None)


async def test_meetings_module_disabled() -> None:
    caps = await detect(server(None))
    assert (caps.meetings, caps.meeting_agenda_items, caps.meeting_outcomes) == (
        False,
        False,
        False,
    )


async def test_released_wiki_has_no_list_and_no_text() -> None:
    caps = await detect(server(None, wiki=WIKI_RELEASED), wiki_page_ids=[3, 7])
    assert caps.wiki_list is False
    assert caps.wiki_text is False


async def test_wiki_list_and_text_detected_from_the_list() -> None:
    caps = await detect(server(None, wiki=WIKI_WITH_TEXT, wiki_list=True))
    assert (caps.wiki_list, caps.wiki_text) == (True, True)


async def test_wiki_text_unknown_without_any_page_to_probe() -> None:
    caps = await detect(server(None))
    assert (caps.wiki_list, caps.wiki_text) == (False, None)


async def test_wiki_list_answering_405_counts_as_absent() -> None:
    fake = server(None).route(
        "/api/v3/wiki_pages", httpx.Response(405, json=error_body("NotAllowed"))
    )
    caps = await detect(fake)
    assert caps.wiki_list is False


async def test_server_errors_during_detection_are_not_mistaken_for_absence() -> None:
    fake = server(None).route("/api/v3/meetings", httpx.Response(500, json=error_body("Boom")))
    async with make_client(fake) as client:
        with pytest.raises(ServerError):
            await detect_capabilities(client)


def test_capabilities_round_trip_as_json() -> None:
    caps = ServerCapabilities(
        meetings=True,
        meeting_agenda_items=True,
        meeting_outcomes=None,
        wiki_list=False,
        wiki_text=False,
    )
    text = caps.to_json()
    assert '"meeting_outcomes":null' in text
    assert ServerCapabilities.from_json(text) == caps
