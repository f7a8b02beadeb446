"""Typed views of meetings, their agenda items and outcomes (17.4+/17.6+ fields optional)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import datetime
from typing import Any, Self

from pydantic import Field

from opindex.openproject.api_models import ApiModel, build, optional_str, timestamps
from opindex.openproject.hal import (
    Ref,
    embedded_elements,
    formattable_raw,
    link_list,
    ref,
    refs_from_links,
)

_ISO_DURATION = re.compile(
    r"^P(?:(?P<days>\d+(?:\.\d+)?)D)?"
    r"(?:T(?:(?P<hours>\d+(?:\.\d+)?)H)?(?:(?P<minutes>\d+(?:\.\d+)?)M)?"
    r"(?:(?P<seconds>\d+(?:\.\d+)?)S)?)?$"
)


def duration_hours(value: object) -> float | None:
    """A meeting duration in hours: a number (as the examples send) or an ISO 8601 duration."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if not isinstance(value, str) or value in ("", "P", "PT"):
        return None
    match = _ISO_DURATION.match(value.strip())
    if match is None:
        return None
    parts = {key: float(number) for key, number in match.groupdict().items() if number}
    return (
        parts.get("days", 0.0) * 24
        + parts.get("hours", 0.0)
        + parts.get("minutes", 0.0) / 60
        + parts.get("seconds", 0.0) / 3600
    )


class Outcome(ApiModel):
    """An outcome of an agenda item (17.6+); ``notes`` is raw Markdown ('' if none)."""

    id: int = Field(gt=0)
    kind: str | None = None
    notes: str = ""
    agenda_item_id: int | None = None
    work_package: Ref | None = None
    created_at: datetime | None = None
    updated_at: datetime | None = None

    @classmethod
    def from_hal(cls, data: Mapping[str, Any], agenda_item_id: int | None = None) -> Self:
        """Parse a ``MeetingOutcome``; *agenda_item_id* fills in a missing back link."""
        item = ref(data, "agendaItem")
        values = {
            "id": data.get("id"),
            "kind": optional_str(data.get("kind")),
            "notes": formattable_raw(data.get("notes")) or "",
            "agenda_item_id": (item.id if item and item.id is not None else agenda_item_id),
            "work_package": ref(data, "workPackage"),
            **timestamps(data),
        }
        return build(cls, values, data)


class AgendaItem(ApiModel):
    """A meeting agenda item (17.4+); ``notes`` is raw Markdown, ``None`` if absent.

    ``outcomes`` is ``None`` when the outcomes were not read (server without outcomes, or
    not embedded and not fetched). ``outcomes_linked`` tells whether the item links its
    outcomes (17.6+); ``outcome_link_count`` is their number when linked as an array.
    """

    id: int = Field(gt=0)
    title: str = ""
    notes: str | None = None
    position: int | None = None
    item_type: str | None = None
    meeting_id: int | None = None
    work_package: Ref | None = None
    outcomes: tuple[Outcome, ...] | None = None
    outcomes_linked: bool = False
    outcome_link_count: int | None = None
    created_at: datetime | None = None
    updated_at: datetime | None = None

    @classmethod
    def from_hal(cls, data: Mapping[str, Any]) -> Self:
        """Parse a ``MeetingAgendaItem``, including outcomes when they are embedded."""
        item_id = data.get("id")
        owner_id = item_id if isinstance(item_id, int) else None
        meeting = ref(data, "meeting")
        position = data.get("position")
        linked = link_list(data, "outcomes")
        values = {
            "id": item_id,
            "title": optional_str(data.get("title")) or "",
            "notes": formattable_raw(data.get("notes")),
            "position": position if isinstance(position, int) else None,
            "item_type": optional_str(data.get("itemType")),
            "meeting_id": meeting.id if meeting else None,
            "work_package": ref(data, "workPackage"),
            "outcomes": _embedded_outcomes(data, owner_id),
            "outcomes_linked": _has_link(data, "outcomes"),
            "outcome_link_count": len(linked) if linked is not None else None,
            **timestamps(data),
        }
        return build(cls, values, data)


def _embedded_outcomes(data: Mapping[str, Any], item_id: int | None) -> tuple[Outcome, ...] | None:
    """Outcomes embedded as an array or as a collection; ``None`` when not embedded."""
    container = data.get("_embedded")
    if not isinstance(container, Mapping) or "outcomes" not in container:
        return None
    value = container.get("outcomes")
    if isinstance(value, list):
        items = [entry for entry in value if isinstance(entry, Mapping)]
    elif isinstance(value, Mapping):
        items = embedded_elements(value)
    else:
        return None
    return tuple(Outcome.from_hal(entry, item_id) for entry in items)


class Meeting(ApiModel):
    """A meeting. Before 17.4 there are no ``state`` or ``participants`` (both ``None``)."""

    id: int = Field(gt=0)
    title: str = ""
    location: str | None = None
    start_time: datetime | None = None
    end_time: datetime | None = None
    duration_hours: float | None = None
    state: str | None = None
    author: Ref | None = None
    project: Ref | None = None
    participants: tuple[Ref, ...] | None = None
    has_agenda_items_link: bool = False
    created_at: datetime | None = None
    updated_at: datetime | None = None

    @classmethod
    def from_hal(cls, data: Mapping[str, Any]) -> Self:
        """Parse a ``Meeting`` resource."""
        values = {
            "id": data.get("id"),
            "title": optional_str(data.get("title")) or "",
            "location": optional_str(data.get("location")),
            "start_time": data.get("startTime"),
            "end_time": data.get("endTime"),
            "duration_hours": duration_hours(data.get("duration")),
            "state": optional_str(data.get("state")),
            "author": ref(data, "author"),
            "project": ref(data, "project"),
            "participants": _participants(data),
            "has_agenda_items_link": _has_link(data, "agendaItems"),
            **timestamps(data),
        }
        return build(cls, values, data)


def _participants(data: Mapping[str, Any]) -> tuple[Ref, ...] | None:
    """Participants from ``_embedded.participants`` (richer) or ``_links.participants``."""
    container = data.get("_embedded")
    if isinstance(container, Mapping) and "participants" in container:
        value = container["participants"]
        if isinstance(value, list):
            return refs_from_links([item for item in value if isinstance(item, Mapping)])
        if isinstance(value, Mapping):
            return refs_from_links(embedded_elements(value))
    linked = link_list(data, "participants")
    if linked is not None:
        return refs_from_links(linked)
    return None


def _has_link(data: Mapping[str, Any], name: str) -> bool:
    links = data.get("_links")
    return isinstance(links, Mapping) and links.get(name) is not None
