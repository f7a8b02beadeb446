"""Model parsing against the documented API example payloads (and schema-checked payloads)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from tests.support.openapi import load_example, load_schema, response_example, validator

from opindex.errors import OpenProjectError
from opindex.openproject import (
    Activity,
    AgendaItem,
    Meeting,
    Outcome,
    Project,
    Ref,
    Status,
    User,
    WikiPage,
    WorkPackage,
    closed_status_ids,
    href_id,
    resolve_status_closed,
)
from opindex.openproject.hal import embedded_elements
from opindex.openproject.meeting_models import duration_hours


def test_work_package_schema_example() -> None:
    data = load_schema("work_package_model.yml")["example"]
    wp = WorkPackage.from_hal(data)
    assert wp.id == 1528
    assert wp.subject == "Develop API"
    assert wp.description == "Develop super cool OpenProject API."
    assert wp.status == Ref(id=1, name="New")
    assert wp.status_is_closed is None  # only href + title: needs the status table
    assert wp.type == Ref(id=1, name="A Type")
    assert wp.assignee == Ref(id=11, name="Emmie Okuneva - Adele5450")
    assert wp.author == Ref(id=1, name="OpenProject Admin - admin")
    assert wp.project == Ref(id=1, name="A Test Project")
    assert wp.created_at == datetime(2014, 8, 29, 12, 40, 53, 373000, tzinfo=UTC)
    assert wp.updated_at == datetime(2014, 8, 29, 12, 44, 41, 981000, tzinfo=UTC)
    assert wp.display_id is None


def test_work_package_create_response_example() -> None:
    document = load_example("work_packages.yml")
    content = document["post"]["responses"]["200"]["content"]["application/hal+json"]
    wp = WorkPackage.from_hal(next(iter(content["examples"].values()))["value"])
    assert (wp.id, wp.subject, wp.status) == (1528, "Develop API", Ref(id=1, name="New"))


def test_work_package_collection_example_elements_parse() -> None:
    data = load_schema("work_packages_model.yml")["example"]
    wps = [WorkPackage.from_hal(element) for element in embedded_elements(data)]
    assert [wp.id for wp in wps] == [1, 2]
    assert all(wp.description is None for wp in wps)  # abbreviated: not read


def test_work_package_embedded_status_display_id_and_odd_links() -> None:
    data = {
        "_type": "WorkPackage",
        "id": 9,
        "subject": "Fix login",
        "displayId": "OPS-9",
        "description": {"format": "markdown", "raw": None, "html": ""},
        "someFutureField": {"nested": True},
        "_embedded": {"status": {"_type": "Status", "id": 4, "name": "Closed", "isClosed": True}},
        "_links": {
            "status": {"href": "/api/v3/statuses/4", "title": "Closed"},
            "assignee": {"href": "urn:openproject-org:api:v3:undisclosed", "title": "Undisclosed"},
            "author": {"href": None},
            "project": {"href": "https://op.example.com/sub/api/v3/projects/3?x=1", "title": "Ops"},
        },
    }
    wp = WorkPackage.from_hal(data)
    assert wp.display_id == "OPS-9"
    assert wp.status_is_closed is True
    assert wp.description == ""
    assert wp.assignee == Ref(id=None, name="Undisclosed")
    assert wp.author is None
    assert wp.project == Ref(id=3, name="Ops")
    assert WorkPackage.from_hal({**data, "displayId": 9}).display_id == "9"


def test_status_closed_mapping() -> None:
    statuses = [
        Status.from_hal({"_type": "Status", "id": 1, "name": "New", "isClosed": False}),
        Status.from_hal({"_type": "Status", "id": 4, "name": "Closed", "isClosed": True}),
        Status.from_hal({"_type": "Status", "id": 5, "name": "Odd"}),
    ]
    table = closed_status_ids(statuses)
    assert table == {1: False, 4: True}
    wp = WorkPackage.from_hal(load_schema("work_package_model.yml")["example"])
    assert resolve_status_closed(wp, table) is False
    assert resolve_status_closed(wp, {}) is None
    embedded = wp.model_copy(update={"status_is_closed": True})
    assert resolve_status_closed(embedded, table) is True


@pytest.mark.parametrize(
    ("data", "expected_id", "expected_comment"),
    [
        pytest.param(
            load_schema("activity_model.yml")["example"],
            1,
            "Lorem ipsum dolor sit amet.",
            id="activity_model.yml",
        ),
        pytest.param(
            load_example("activity_response.yml")["value"],
            1478,
            "I can give you a CR70 corvette, you have to make do, Leia...",
            id="activity_response.yml",
        ),
    ],
)
def test_activity_examples(data: dict[str, Any], expected_id: int, expected_comment: str) -> None:
    activity = Activity.from_hal(data)
    assert activity.id == expected_id
    assert activity.comment == expected_comment
    assert activity.is_comment is True
    assert activity.internal is False
    assert activity.created_at is not None


def test_activity_path_example_and_user_link() -> None:
    activity = Activity.from_hal(response_example(load_example("activity.yml")))
    assert activity.user == Ref(id=1, name="John Sheppard - admin")
    assert activity.work_package_id == 1
    assert activity.version == 31
    assert activity.updated_at is None


def test_work_package_activities_collection_example() -> None:
    data = response_example(load_example("work_package_activities.yml"))
    activities = [Activity.from_hal(element) for element in embedded_elements(data)]
    assert [a.id for a in activities] == [1, 2]
    assert [a.version for a in activities] == [1, 2]
    assert all(a.user == Ref(id=1, name=None) for a in activities)
    model = load_schema("work_package_activities_model.yml")["example"]
    assert [Activity.from_hal(e).id for e in embedded_elements(model)] == [1, 2]


def test_meeting_simple_response_example() -> None:
    meeting = Meeting.from_hal(load_example("meeting_simple_response.yml")["value"])
    assert meeting.id == 1
    assert meeting.title == "Meeting No 42"
    assert meeting.location == "Death Star - Level 1337 L13/42"
    assert meeting.start_time == datetime(2026, 2, 16, 10, 0, tzinfo=UTC)
    assert meeting.duration_hours == 1.0
    assert meeting.author == Ref(id=4, name="Darth Vader")
    assert meeting.project == Ref(id=10, name="Death Star")
    assert meeting.state is None  # the example has no 17.4 fields
    assert meeting.participants is None


def test_meeting_collection_example() -> None:
    data = load_example("meeting_collection_simple_response.yml")["value"]
    meetings = [Meeting.from_hal(element) for element in embedded_elements(data)]
    assert [(m.id, m.title) for m in meetings] == [(6, "Weekly"), (5, "Weekly")]
    assert meetings[0].location is None


def test_meeting_with_participants_and_state() -> None:
    data = {
        "_type": "Meeting",
        "id": 12,
        "title": "Weekly sync",
        "state": "closed",
        "duration": "PT1H30M",
        "_links": {
            "participants": [
                {"href": "/api/v3/users/1", "title": "Ada Admin"},
                {"href": "urn:openproject-org:api:v3:undisclosed"},
            ],
            "agendaItems": {"href": "/api/v3/meetings/12/agenda_items"},
        },
    }
    meeting = Meeting.from_hal(data)
    assert meeting.state == "closed"
    assert meeting.duration_hours == 1.5
    assert meeting.participants == (Ref(id=1, name="Ada Admin"), Ref(id=None, name=None))
    assert meeting.has_agenda_items_link is True


AGENDA_ITEM = {
    "_type": "MeetingAgendaItem",
    "id": 120,
    "title": "Hiring plan",
    "notes": {"format": "markdown", "raw": "Two **backend** roles", "html": "<p>…</p>"},
    "position": 1,
    "durationInMinutes": None,
    "itemType": "simple",
    "lockVersion": 0,
    "createdAt": "2026-03-01T09:00:00Z",
    "updatedAt": "2026-03-05T10:00:00Z",
    "_links": {
        "self": {"href": "/api/v3/meetings/12/agenda_items/120", "title": "Hiring plan"},
        "meeting": {"href": "/api/v3/meetings/12", "title": "Weekly sync"},
        "author": {"href": "/api/v3/users/1", "title": "Ada Admin"},
        "presenter": {"href": None},
    },
}
OUTCOME = {
    "_type": "MeetingOutcome",
    "id": 1200,
    "kind": "information",
    "notes": {"format": "markdown", "raw": "Open both roles in April", "html": "<p>…</p>"},
    "createdAt": "2026-03-05T10:00:00Z",
    "updatedAt": "2026-03-05T10:00:00Z",
    "_links": {
        "self": {"href": "/api/v3/meeting_outcomes/1200"},
        "agendaItem": {"href": "/api/v3/meetings/12/agenda_items/120", "title": "Hiring plan"},
    },
}


def test_agenda_item_and_outcome_payloads_match_the_schemas() -> None:
    # The examples folder has no agenda item/outcome payloads; these are checked against
    # the published schemas instead, so that the parsing tests below use real shapes.
    validator("meeting_agenda_item_model.yml").validate(AGENDA_ITEM)
    validator("meeting_outcome_model.yml").validate(OUTCOME)


def test_agenda_item_without_outcomes_17_4() -> None:
    item = AgendaItem.from_hal(AGENDA_ITEM)
    assert (item.id, item.title, item.notes) == (120, "Hiring plan", "Two **backend** roles")
    assert item.meeting_id == 12
    assert item.outcomes is None
    assert item.outcomes_linked is False


def test_agenda_item_with_embedded_outcomes_17_6() -> None:
    data = {
        **AGENDA_ITEM,
        "_links": {**AGENDA_ITEM["_links"], "outcomes": [OUTCOME["_links"]["self"]]},
        "_embedded": {"outcomes": [OUTCOME]},
    }
    item = AgendaItem.from_hal(data)
    assert item.outcomes_linked is True
    assert item.outcome_link_count == 1
    assert item.outcomes is not None
    (outcome,) = item.outcomes
    assert outcome == Outcome.from_hal(OUTCOME)
    assert (outcome.id, outcome.kind, outcome.agenda_item_id) == (1200, "information", 120)
    assert outcome.notes == "Open both roles in April"


def test_outcomes_embedded_as_a_collection_and_missing_back_link() -> None:
    bare = {key: value for key, value in OUTCOME.items() if key != "_links"}
    data = {**AGENDA_ITEM, "_embedded": {"outcomes": {"_embedded": {"elements": [bare]}}}}
    item = AgendaItem.from_hal(data)
    assert item.outcomes is not None
    assert item.outcomes[0].agenda_item_id == 120


def test_wiki_page_examples() -> None:
    for data in (
        response_example(load_example("wiki_page.yml")),
        load_schema("wiki_page_model.yml")["example"],
    ):
        page = WikiPage.from_hal(data)
        assert page.id == 72
        assert page.title == "A wiki page with a name"
        assert page.project == Ref(id=12, name="some project")
        assert page.text is None  # released servers send no body
        assert page.slug is None and page.updated_at is None


def test_wiki_page_with_text() -> None:
    data = {
        "_type": "WikiPage",
        "id": 7,
        "title": "Runbook",
        "slug": "runbook",
        "text": {"format": "markdown", "raw": "Restart the **queue**", "html": ""},
        "updatedAt": "2026-02-01T08:00:00Z",
        "_links": {"project": {"href": "/api/v3/projects/1", "title": "Operations"}},
    }
    page = WikiPage.from_hal(data)
    assert (page.text, page.slug) == ("Restart the **queue**", "runbook")
    assert page.updated_at == datetime(2026, 2, 1, 8, 0, tzinfo=UTC)


def test_project_examples() -> None:
    project = Project.from_hal(load_example("project.yml")["value"])
    assert (project.id, project.identifier) == (1, "project_example")
    assert project.name == "Project example"
    assert project.active is True and project.public is False
    assert project.description == "Lorem **ipsum** dolor sit amet"
    assert project.parent == Ref(id=123, name="Parent project")
    data = load_example("project_collection.yml")["value"]
    names = [Project.from_hal(e).name for e in embedded_elements(data)]
    assert names == ["DeathStar construction", "Palpatine's secret plan"]


def test_user_example() -> None:
    user = User.from_hal(load_example("user-response.yml")["value"])
    assert (user.id, user.login, user.name) == (14, "member", "Mara Jade")
    assert user.admin is False
    assert user.email == "m.jade@empire.org"


@pytest.mark.parametrize(
    ("href", "expected"),
    [
        ("/api/v3/users/5", 5),
        ("api/v3/users/14", 14),
        ("https://op.example.com/sub/api/v3/users/5/", 5),
        ("/api/v3/work_packages/42?foo=bar#x", 42),
        ("urn:openproject-org:api:v3:undisclosed", None),
        (None, None),
        ("", None),
        ("/api/v3/project_statuses/on_track", None),
        ("/api/v3/users/{user_id}", None),
        ("/api/v3/users/0", None),
        (17, None),
    ],
)
def test_href_id(href: object, expected: int | None) -> None:
    assert href_id(href) == expected


@pytest.mark.parametrize(
    ("value", "hours"),
    [(1.0, 1.0), (2, 2.0), ("PT1H", 1.0), ("PT45M", 0.75), ("P1DT2H", 26.0), ("x", None)],
)
def test_duration_hours(value: object, hours: float | None) -> None:
    assert duration_hours(value) == hours


@pytest.mark.parametrize(
    "data",
    [
        {"_type": "WorkPackage", "subject": "no id"},
        {"_type": "WorkPackage", "id": 0},
        {"_type": "WorkPackage", "id": 3, "updatedAt": "yesterday"},
    ],
)
def test_malformed_resources_raise_a_clear_error(data: dict[str, Any]) -> None:
    with pytest.raises(OpenProjectError) as caught:
        WorkPackage.from_hal(data)
    assert "malformed WorkPackage" in str(caught.value)
