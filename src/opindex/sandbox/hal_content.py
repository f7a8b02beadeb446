"""HAL representers of content: work packages, activities, wiki pages, meetings and agendas."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from opindex.sandbox.corpus import Activity, AgendaItem, Meeting, Outcome, WikiPage, WorkPackage
from opindex.sandbox.hal_core import (
    API,
    Json,
    duration_hours,
    formattable,
    link,
    project_link,
    project_resource,
    timestamp,
    user_link,
)
from opindex.sandbox.options import MeetingsApi
from opindex.sandbox.store import SandboxStore

NORMAL_PRIORITY = link(f"{API}/priorities/8", "Normal")


def work_package_resource(store: SandboxStore, work_package: WorkPackage) -> Json:
    """A ``WorkPackage`` with the links the schema requires (priority is always Normal)."""
    base = f"{API}/work_packages/{work_package.id}"
    project = store.projects[work_package.project]
    status = store.statuses[work_package.status]
    wp_type = store.types[work_package.type]
    return {
        "_type": "WorkPackage",
        "id": work_package.id,
        "lockVersion": work_package.lock_version,
        "subject": work_package.subject,
        "description": formattable(work_package.description),
        "scheduleManually": False,
        "readonly": False,
        "createdAt": timestamp(work_package.created_at),
        "updatedAt": timestamp(work_package.updated_at),
        "_links": {
            "self": link(base, work_package.subject),
            "schema": link(f"{API}/work_packages/schemas/{project.id}-{wp_type.id}"),
            "ancestors": [],
            "children": [],
            "attachments": link(f"{base}/attachments"),
            "activities": link(f"{base}/activities"),
            "author": user_link(store.users, work_package.author),
            "assignee": user_link(store.users, work_package.assignee),
            "responsible": link(None),
            "parent": link(None),
            "priority": NORMAL_PRIORITY,
            "project": project_link(project),
            "status": link(f"{API}/statuses/{status.id}", status.name),
            "type": link(f"{API}/types/{wp_type.id}", wp_type.name),
        },
    }


_WP_SCALARS: dict[str, Callable[[WorkPackage], Any]] = {
    "_type": lambda wp: "WorkPackage",
    "id": lambda wp: wp.id,
    "lockVersion": lambda wp: wp.lock_version,
    "subject": lambda wp: wp.subject,
    "description": lambda wp: formattable(wp.description),
    "createdAt": lambda wp: timestamp(wp.created_at),
    "updatedAt": lambda wp: timestamp(wp.updated_at),
}


def work_package_fields(store: SandboxStore, work_package: WorkPackage, names: set[str]) -> Json:
    """Only the named properties (or links) of a work package: the cheap path of ``select``."""
    if not names <= _WP_SCALARS.keys():
        return work_package_resource(store, work_package)
    return {name: _WP_SCALARS[name](work_package) for name in names}


def journal_versions(work_package: WorkPackage) -> dict[int, int]:
    """Activity id -> journal version (1-based, in creation order, internal ones included)."""
    ordered = sorted(work_package.activities, key=lambda a: (a.created_at, a.id))
    return {activity.id: index for index, activity in enumerate(ordered, start=1)}


def activity_resource(
    store: SandboxStore, work_package: WorkPackage, activity: Activity, version: int
) -> Json:
    """An ``Activity::Comment`` if the entry carries a comment, else an ``Activity``."""
    return {
        "_type": "Activity::Comment" if activity.comment else "Activity",
        "id": activity.id,
        "version": version,
        "comment": formattable(activity.comment),
        "details": [formattable(line, "custom") for line in activity.details],
        "internal": activity.internal,
        "createdAt": timestamp(activity.created_at),
        "updatedAt": timestamp(activity.updated_at),
        "_links": {
            "self": link(f"{API}/activities/{activity.id}"),
            "workPackage": link(f"{API}/work_packages/{work_package.id}", work_package.subject),
            "user": user_link(store.users, activity.user),
            "attachments": link(f"{API}/activities/{activity.id}/attachments"),
        },
    }


def slugify(title: str) -> str:
    """The URL slug OpenProject derives from a wiki page title."""
    return re.sub(r"[^\w]+", "-", title.lower()).strip("-") or "page"


def wiki_page_resource(store: SandboxStore, page: WikiPage, *, with_text: bool) -> Json:
    """A ``WikiPage``: the released shape, plus text/slug/timestamps when *with_text*."""
    base = f"{API}/wiki_pages/{page.id}"
    project = store.projects[page.project]
    body: Json = {
        "_type": "WikiPage",
        "id": page.id,
        "title": page.title,
        "_embedded": {"project": project_resource(project)},
        "_links": {
            "self": link(base, page.title),
            "project": project_link(project),
            "attachments": link(f"{base}/attachments"),
            "addAttachment": link(f"{base}/attachments", method="post"),
        },
    }
    if with_text:
        body.update(
            slug=page.slug or slugify(page.title),
            text=formattable(page.text),
            lockVersion=page.lock_version,
            createdAt=timestamp(page.created_at),
            updatedAt=timestamp(page.updated_at),
        )
    return body


def meeting_resource(store: SandboxStore, meeting: Meeting, level: MeetingsApi) -> Json:
    """A ``Meeting`` as the given API level renders it (16: scalar fields only)."""
    base = f"{API}/meetings/{meeting.id}"
    end_time = meeting.start_time + timedelta(hours=meeting.duration)
    body: Json = {
        "_type": "Meeting",
        "id": meeting.id,
        "title": meeting.title,
        "lockVersion": meeting.lock_version,
        "startTime": timestamp(meeting.start_time),
        "endTime": timestamp(end_time),
        "duration": duration_hours(meeting.duration),
        "createdAt": timestamp(meeting.created_at),
        "updatedAt": timestamp(meeting.updated_at),
        "_links": {
            "self": link(base, meeting.title),
            "author": user_link(store.users, meeting.author),
            "project": project_link(store.projects[meeting.project]),
            "attachments": link(f"{base}/attachments"),
        },
    }
    if meeting.location is not None:
        body["location"] = meeting.location
    if level.has_agenda_items:
        body.update(state=meeting.state, template=False)
        links = body["_links"]
        links["schema"] = link(f"{API}/meetings/schema")
        links["participants"] = [user_link(store.users, uid) for uid in meeting.participants]
        links["agendaItems"] = link(f"{base}/agenda_items")
        links["sections"] = link(f"{base}/sections")
    return body


def agenda_item_resource(
    store: SandboxStore, meeting: Meeting, item: AgendaItem, level: MeetingsApi
) -> Json:
    """A ``MeetingAgendaItem``; from 17.6 with its outcomes linked and embedded."""
    base = f"{API}/meetings/{meeting.id}/agenda_items/{item.id}"
    body: Json = {
        "_type": "MeetingAgendaItem",
        "id": item.id,
        "title": item.title,
        "notes": formattable(item.notes),
        "position": item.position,
        "durationInMinutes": item.duration_in_minutes,
        "itemType": "simple",
        "lockVersion": 0,
        "createdAt": timestamp(item.created_at),
        "updatedAt": timestamp(item.updated_at),
        "_links": {
            "self": link(base, item.title),
            "meeting": link(f"{API}/meetings/{meeting.id}", meeting.title),
            "author": user_link(store.users, item.author or meeting.author),
            "presenter": user_link(store.users, item.presenter),
        },
    }
    if level.has_outcomes:
        outcomes = [outcome_resource(store, meeting, item, o) for o in item.outcomes]
        body["_links"]["outcomes"] = [o["_links"]["self"] for o in outcomes]
        body["_embedded"] = {"outcomes": outcomes}
    return body


def outcome_resource(
    store: SandboxStore, meeting: Meeting, item: AgendaItem, outcome: Outcome
) -> Json:
    """A ``MeetingOutcome`` (17.6+)."""
    return {
        "_type": "MeetingOutcome",
        "id": outcome.id,
        "kind": outcome.kind,
        "notes": formattable(outcome.notes),
        "createdAt": timestamp(outcome.created_at),
        "updatedAt": timestamp(outcome.updated_at),
        "_links": {
            "self": link(f"{API}/meeting_outcomes/{outcome.id}"),
            "author": user_link(store.users, outcome.author or item.author or meeting.author),
            "agendaItem": link(f"{API}/meetings/{meeting.id}/agenda_items/{item.id}", item.title),
        },
    }
