"""API models → Records: field names, refs, and "not read" versus "read and empty"."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from tests.support.openapi import load_schema

from opindex.openproject import Activity, AgendaItem, Meeting, WikiPage, WorkPackage
from opindex.record_builders import meeting_record, wiki_page_record, work_package_record
from opindex.search.document import FieldValue

WP_EXAMPLE = load_schema("work_package_model.yml")["example"]


def activity(activity_id: int, comment: str, **extra: Any) -> Activity:
    return Activity.from_hal(
        {
            "_type": "Activity::Comment" if comment else "Activity",
            "id": activity_id,
            "comment": {"format": "markdown", "raw": comment},
            **extra,
        }
    )


def test_work_package_record_with_comments() -> None:
    wp = WorkPackage.from_hal(WP_EXAMPLE)
    activities = [
        activity(31, "Second **comment**"),
        activity(30, ""),  # a pure change entry
        activity(29, "First comment"),
        activity(32, "   "),
    ]
    record = work_package_record(wp, activities, status_closed=True)
    assert record.document.kind == "work_package"
    assert record.id == 1528
    assert dict(record.document.fields) == {
        "subject": (FieldValue("Develop API"),),
        "description": (FieldValue("Develop super cool OpenProject API."),),
        "comments": (
            FieldValue("First comment", ref=29),
            FieldValue("Second **comment**", ref=31),
        ),
    }
    assert record.title == "Develop API"
    assert (record.project_id, record.project_name) == (1, "A Test Project")
    assert record.updated_at == datetime(2014, 8, 29, 12, 44, 41, 981000, tzinfo=UTC)
    assert dict(record.attributes) == {
        "status_id": 1,
        "status_name": "New",
        "is_closed": True,
        "type_id": 1,
        "type_name": "A Type",
        "assignee_id": 11,
        "assignee_name": "Emmie Okuneva - Adele5450",
        "author_id": 1,
        "author_name": "OpenProject Admin - admin",
        "created_at": "2014-08-29T12:40:53.373000+00:00",
        "display_id": None,
        "priority_name": "Normal",
        "start_date": None,
        "due_date": None,
        "parent_id": 1298,
        "parent_title": "nisi eligendi officiis eos delectus quis voluptas dolores",
        "comment_meta": '{"31":[null,null,false],"29":[null,null,false]}',
    }


def test_comment_meta_keeps_who_wrote_each_comment_and_when() -> None:
    wp = WorkPackage.from_hal(WP_EXAMPLE)
    user = {"_links": {"user": {"href": "/api/v3/users/7", "title": "Ada Admin"}}}
    activities = [
        activity(41, "Looks good", createdAt="2026-03-03T10:00:00Z", internal=True, **user),
        activity(42, "", createdAt="2026-03-04T10:00:00Z", **user),
    ]
    record = work_package_record(wp, activities, status_closed=False)
    assert json.loads(str(record.attributes["comment_meta"])) == {
        "41": ["Ada Admin", "2026-03-03T10:00:00+00:00", True]
    }
    assert "comment_meta" not in work_package_record(wp, None, status_closed=False).attributes


def test_work_package_deep_fields_not_read_are_absent() -> None:
    trimmed = WorkPackage.from_hal({"_type": "WorkPackage", "id": 4, "subject": "Only a subject"})
    record = work_package_record(trimmed, None, status_closed=None)
    assert set(record.document.fields) == {"subject"}
    assert record.attributes["is_closed"] is None


def test_work_package_read_but_empty_deep_fields_are_empty_tuples() -> None:
    data = {**WP_EXAMPLE, "description": {"format": "markdown", "raw": ""}}
    record = work_package_record(WorkPackage.from_hal(data), [], status_closed=False)
    assert record.document.fields["description"] == ()
    assert record.document.fields["comments"] == ()


def test_work_package_closed_flag_falls_back_to_the_embedded_status() -> None:
    data = {**WP_EXAMPLE, "_embedded": {"status": {"id": 1, "name": "New", "isClosed": False}}}
    record = work_package_record(WorkPackage.from_hal(data), None, status_closed=None)
    assert record.attributes["is_closed"] is False


def test_wiki_page_record_with_and_without_text() -> None:
    released = WikiPage.from_hal(load_schema("wiki_page_model.yml")["example"])
    record = wiki_page_record(released)
    assert record.document.kind == "wiki_page"
    assert dict(record.document.fields) == {"title": (FieldValue("A wiki page with a name"),)}
    assert (record.project_id, record.project_name) == (12, "some project")
    assert dict(record.attributes) == {"slug": None}

    with_text = released.model_copy(update={"text": "Restart the queue", "slug": "runbook"})
    record = wiki_page_record(with_text)
    assert record.document.fields["text"] == (FieldValue("Restart the queue"),)
    assert record.attributes["slug"] == "runbook"
    assert wiki_page_record(released.model_copy(update={"text": ""})).document.fields["text"] == ()


MEETING = {
    "_type": "Meeting",
    "id": 12,
    "title": "Weekly sync",
    "location": "Room 4",
    "startTime": "2026-03-05T09:00:00Z",
    "state": "closed",
    "updatedAt": "2026-03-05T10:30:00Z",
    "_links": {
        "author": {"href": "/api/v3/users/1", "title": "Ada Admin"},
        "project": {"href": "/api/v3/projects/1", "title": "Operations"},
        "participants": [
            {"href": "/api/v3/users/1", "title": "Ada Admin"},
            {"href": "/api/v3/users/2", "title": "Bob Müller"},
            {"href": "urn:openproject-org:api:v3:undisclosed"},
        ],
    },
}


def agenda_item(item_id: int, title: str, notes: str, outcomes: list[tuple[int, str]] | None):
    data: dict[str, Any] = {
        "_type": "MeetingAgendaItem",
        "id": item_id,
        "title": title,
        "notes": {"format": "markdown", "raw": notes},
    }
    if outcomes is not None:
        data["_embedded"] = {
            "outcomes": [
                {"_type": "MeetingOutcome", "id": oid, "kind": "information",
                 "notes": {"format": "markdown", "raw": text}}
                for oid, text in outcomes
            ]
        }  # fmt: skip
    return AgendaItem.from_hal(data)


def test_meeting_record_with_agenda_outcomes_and_participants() -> None:
    meeting = Meeting.from_hal(MEETING)
    items = [
        agenda_item(120, "Hiring plan", "Two backend roles", [(1201, "Open both"), (1200, "")]),
        agenda_item(121, "Budget", "", [(1210, "Approved")]),
        agenda_item(122, "", "Loose notes", []),
    ]
    record = meeting_record(meeting, items)
    assert record.document.kind == "meeting"
    assert dict(record.document.fields) == {
        "title": (FieldValue("Weekly sync"),),
        "location": (FieldValue("Room 4"),),
        "project": (FieldValue("Operations"),),
        "author": (FieldValue("Ada Admin"),),
        "agenda_title": (FieldValue("Hiring plan", ref=120), FieldValue("Budget", ref=121)),
        "agenda_notes": (
            FieldValue("Two backend roles", ref=120),
            FieldValue("Loose notes", ref=122),
        ),
        "outcome_notes": (FieldValue("Open both", ref=120), FieldValue("Approved", ref=121)),
        "participants": (FieldValue("Ada Admin"), FieldValue("Bob Müller")),
    }
    assert record.title == "Weekly sync"
    assert (record.project_id, record.project_name) == (1, "Operations")
    assert dict(record.attributes) == {
        "start_time": "2026-03-05T09:00:00+00:00",
        "location": "Room 4",
        "state": "closed",
        "author_id": 1,
        "author_name": "Ada Admin",
    }


def test_meeting_record_without_deep_content() -> None:
    # 16.x: no participants, no agenda; the live path before enrichment: agenda not read.
    data = {key: value for key, value in MEETING.items() if key not in ("state", "location")}
    data["_links"] = {k: v for k, v in MEETING["_links"].items() if k != "participants"}
    record = meeting_record(Meeting.from_hal(data), None)
    assert set(record.document.fields) == {"title", "location", "project", "author"}
    assert record.document.fields["location"] == ()


def test_meeting_record_on_a_server_without_outcomes() -> None:
    items = [agenda_item(120, "Hiring plan", "Two roles", None)]
    record = meeting_record(Meeting.from_hal(MEETING), items)
    assert "outcome_notes" not in record.document.fields
    assert record.document.fields["agenda_title"] == (FieldValue("Hiring plan", ref=120),)


def test_meeting_record_with_no_agenda_items_read() -> None:
    record = meeting_record(Meeting.from_hal(MEETING), [])
    fields = record.document.fields
    assert fields["agenda_title"] == fields["agenda_notes"] == fields["outcome_notes"] == ()
