"""Meetings (per API level), wiki pages (per option), projects, users and the root resource."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from tests.support.corpora import varied_corpus
from tests.support.sandbox import (
    ADMIN_KEY,
    MEMBER_KEY,
    OUTSIDER_KEY,
    SandboxHandle,
    running_sandbox,
)

ERROR_PREFIX = "urn:openproject-org:api:v3:errors:"


@pytest.fixture(scope="module")
def released_16() -> Iterator[SandboxHandle]:
    """A 16.x-like server: bare meetings, no wiki text, but the wiki list (PR) endpoints."""
    with running_sandbox(
        varied_corpus(), meetings_api="16", no_wiki_text=True, wiki_list=True
    ) as handle:
        yield handle


@pytest.fixture(scope="module")
def release_17_4() -> Iterator[SandboxHandle]:
    with running_sandbox(varied_corpus(), meetings_api="17.4") as handle:
        yield handle


def _ids(body: dict[str, object]) -> list[int]:
    elements = body["_embedded"]["elements"]  # type: ignore[index]
    return [e["id"] for e in elements]


def test_meetings_list_visibility_and_filters(shared_sandbox: SandboxHandle) -> None:
    assert _ids(shared_sandbox.get("/api/v3/meetings").json()) == [12, 13, 14]
    assert _ids(shared_sandbox.get("/api/v3/meetings", OUTSIDER_KEY).json()) == [12, 14]
    future = json.dumps([{"time": {"operator": "=", "values": ["future"]}}])
    assert _ids(shared_sandbox.get("/api/v3/meetings", params={"filters": future}).json()) == [14]
    past = json.dumps(
        [
            {"time": {"operator": "=", "values": ["past"]}},
            {"project": {"operator": "=", "values": ["1"]}},
        ]
    )
    assert _ids(shared_sandbox.get("/api/v3/meetings", params={"filters": past}).json()) == [12]
    assert shared_sandbox.get("/api/v3/meetings/13", OUTSIDER_KEY).status_code == 404


def test_meeting_at_17_6_has_state_participants_agenda_and_outcomes(
    shared_sandbox: SandboxHandle,
) -> None:
    meeting = shared_sandbox.get("/api/v3/meetings/12").json()
    assert meeting["state"] == "closed"
    assert meeting["duration"] == "PT1H"
    assert meeting["startTime"] == "2026-03-05T09:00:00.000Z"
    assert meeting["endTime"] == "2026-03-05T10:00:00.000Z"
    assert [p["href"] for p in meeting["_links"]["participants"]] == [
        "/api/v3/users/1",
        "/api/v3/users/2",
    ]
    assert meeting["_links"]["author"]["title"] == "Bob Müller"
    items = shared_sandbox.get("/api/v3/meetings/12/agenda_items").json()
    assert "pageSize" not in items and items["total"] == 2
    first = items["_embedded"]["elements"][0]
    assert first["title"] == "Hiring plan" and first["notes"]["raw"] == "Two open positions."
    outcomes = first["_embedded"]["outcomes"]
    assert [(o["kind"], o["notes"]["raw"]) for o in outcomes] == [
        ("information", "Interviews next week."),
        ("decision", "We hire two engineers."),
    ]
    listed = shared_sandbox.get("/api/v3/meetings/12/agenda_items/120/outcomes").json()
    assert _ids(listed) == [1200, 1201]


def test_meetings_api_17_4_has_agenda_items_but_no_outcomes(release_17_4: SandboxHandle) -> None:
    meeting = release_17_4.get("/api/v3/meetings/12").json()
    assert meeting["state"] == "closed" and "participants" in meeting["_links"]
    item = release_17_4.get("/api/v3/meetings/12/agenda_items").json()["_embedded"]["elements"][0]
    assert "_embedded" not in item and "outcomes" not in item["_links"]
    missing = release_17_4.get("/api/v3/meetings/12/agenda_items/120/outcomes")
    assert missing.status_code == 404
    assert missing.json()["errorIdentifier"] == ERROR_PREFIX + "NotFound"


def test_meetings_api_16_has_scalar_meetings_only(released_16: SandboxHandle) -> None:
    meeting = released_16.get("/api/v3/meetings/12").json()
    assert meeting["title"] == "Weekly sync" and meeting["location"] == "Room 4"
    assert "state" not in meeting
    assert "participants" not in meeting["_links"] and "agendaItems" not in meeting["_links"]
    assert released_16.get("/api/v3/meetings/12/agenda_items").status_code == 404
    root = released_16.get("/api/v3").json()
    assert root["coreVersion"] == "16.6.0"


def test_wiki_page_text_by_default_and_gaps_give_404(shared_sandbox: SandboxHandle) -> None:
    page = shared_sandbox.get("/api/v3/wiki_pages/7").json()
    assert page["title"] == "Runbook" and page["slug"] == "runbook"
    assert page["text"]["raw"] == "Restart **everything**."
    assert page["_links"]["project"] == {"href": "/api/v3/projects/1", "title": "Operations"}
    assert shared_sandbox.get("/api/v3/wiki_pages/9").status_code == 404
    assert shared_sandbox.get("/api/v3/wiki_pages/60", OUTSIDER_KEY).status_code == 200
    assert shared_sandbox.get("/api/v3/wiki_pages/8", OUTSIDER_KEY).status_code == 404
    assert shared_sandbox.get("/api/v3/wiki_pages").status_code == 404
    assert shared_sandbox.get("/api/v3/projects/1/wiki_pages").status_code == 404


def test_no_wiki_text_and_wiki_list_options(released_16: SandboxHandle) -> None:
    page = released_16.get("/api/v3/wiki_pages/7").json()
    assert "text" not in page and "slug" not in page and "updatedAt" not in page
    listed = released_16.get("/api/v3/wiki_pages", OUTSIDER_KEY).json()
    assert _ids(listed) == [7, 60] and listed["pageSize"] == 20
    scoped = released_16.get("/api/v3/projects/hr/wiki_pages", MEMBER_KEY).json()
    assert _ids(scoped) == [8]


def test_root_reports_core_version_to_admins_only(shared_sandbox: SandboxHandle) -> None:
    assert shared_sandbox.get("/api/v3", ADMIN_KEY).json()["coreVersion"] == "17.6.0"
    member_root = shared_sandbox.get("/api/v3", MEMBER_KEY).json()
    assert "coreVersion" not in member_root
    assert member_root["_links"]["user"]["href"] == "/api/v3/users/2"


def test_users_me_and_other_users(shared_sandbox: SandboxHandle) -> None:
    me = shared_sandbox.get("/api/v3/users/me", MEMBER_KEY).json()
    assert (me["id"], me["login"], me["name"], me["admin"]) == (2, "bob", "Bob Müller", False)
    other = shared_sandbox.get("/api/v3/users/1", MEMBER_KEY).json()
    assert other["name"] == "Ada Admin" and "login" not in other
    assert shared_sandbox.get("/api/v3/users/999").status_code == 404


def test_projects_statuses_and_types(shared_sandbox: SandboxHandle) -> None:
    projects = shared_sandbox.get("/api/v3/projects", OUTSIDER_KEY).json()
    assert _ids(projects) == [1, 3]
    assert projects["_embedded"]["elements"][1]["public"] is True
    active = json.dumps([{"active": {"operator": "=", "values": ["f"]}}])
    assert _ids(shared_sandbox.get("/api/v3/projects", params={"filters": active}).json()) == [4]
    assert shared_sandbox.get("/api/v3/projects/hr", OUTSIDER_KEY).status_code == 404
    assert shared_sandbox.get("/api/v3/projects/hr").json()["id"] == 2
    statuses = shared_sandbox.get("/api/v3/statuses").json()["_embedded"]["elements"]
    assert [(s["name"], s["isClosed"]) for s in statuses] == [
        ("New", False),
        ("In progress", False),
        ("Closed", True),
    ]
    assert shared_sandbox.get("/api/v3/types/2").json()["name"] == "Bug"
