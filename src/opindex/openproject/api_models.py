"""Typed views of OpenProject resources (users, projects, statuses, work packages, wiki pages).

Each model is flat and frozen; ``from_hal`` reads one HAL resource. Unknown properties are
ignored and missing optional ones become ``None``, so older and newer servers both parse.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any, Self, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from opindex.errors import OpenProjectError
from opindex.openproject.hal import Ref, embedded, formattable_raw, ref

ModelT = TypeVar("ModelT", bound="ApiModel")


class ApiModel(BaseModel):
    """Base of every API model: frozen, extra fields ignored."""

    model_config = ConfigDict(frozen=True, extra="ignore")


def build(model: type[ModelT], values: Mapping[str, Any], source: Mapping[str, Any]) -> ModelT:
    """Validate *values* into *model*; a malformed resource becomes an OpenProjectError."""
    try:
        return model.model_validate(dict(values))
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first.get("loc", ())) or "resource"
        kind = source.get("_type", model.__name__)
        raise OpenProjectError(
            f"OpenProject returned a malformed {kind} (id={source.get('id')!r}): "
            f"{where}: {first.get('msg', 'invalid')}"
        ) from exc


def optional_str(value: object) -> str | None:
    """A string property, or ``None`` when absent, null or not a string."""
    return value if isinstance(value, str) else None


def optional_bool(value: object) -> bool | None:
    """A boolean property, or ``None`` when absent or not a boolean."""
    return value if isinstance(value, bool) else None


def timestamps(data: Mapping[str, Any]) -> dict[str, Any]:
    """``createdAt``/``updatedAt`` as model field values (``None`` when absent)."""
    return {"created_at": data.get("createdAt"), "updated_at": data.get("updatedAt")}


class User(ApiModel):
    """A user (``GET /api/v3/users/{id}``, ``users/me``)."""

    id: int = Field(gt=0)
    name: str | None = None
    login: str | None = None
    admin: bool | None = None
    status: str | None = None
    email: str | None = None
    created_at: datetime | None = None
    updated_at: datetime | None = None
    type: str | None = None

    @classmethod
    def from_hal(cls, data: Mapping[str, Any]) -> Self:
        """Parse a ``User`` resource."""
        values = {
            "id": data.get("id"),
            "name": optional_str(data.get("name")),
            "login": optional_str(data.get("login")),
            "admin": optional_bool(data.get("admin")),
            "status": optional_str(data.get("status")),
            "email": optional_str(data.get("email")),
            "type": optional_str(data.get("_type")),
            **timestamps(data),
        }
        return build(cls, values, data)


class Project(ApiModel):
    """A project (``GET /api/v3/projects``)."""

    id: int = Field(gt=0)
    identifier: str | None = None
    name: str = ""
    active: bool | None = None
    public: bool | None = None
    description: str | None = None
    status_explanation: str | None = None
    parent: Ref | None = None
    created_at: datetime | None = None
    updated_at: datetime | None = None

    @classmethod
    def from_hal(cls, data: Mapping[str, Any]) -> Self:
        """Parse a ``Project`` resource."""
        values = {
            "id": data.get("id"),
            "identifier": optional_str(data.get("identifier")),
            "name": optional_str(data.get("name")) or "",
            "active": optional_bool(data.get("active")),
            "public": optional_bool(data.get("public")),
            "description": formattable_raw(data.get("description")),
            "status_explanation": formattable_raw(data.get("statusExplanation")),
            "parent": ref(data, "parent"),
            **timestamps(data),
        }
        return build(cls, values, data)


class Status(ApiModel):
    """A work package status (``GET /api/v3/statuses``); ``is_closed`` drives open/closed."""

    id: int = Field(gt=0)
    name: str = ""
    is_closed: bool | None = None

    @classmethod
    def from_hal(cls, data: Mapping[str, Any]) -> Self:
        """Parse a ``Status`` resource."""
        values = {
            "id": data.get("id"),
            "name": optional_str(data.get("name")) or "",
            "is_closed": optional_bool(data.get("isClosed")),
        }
        return build(cls, values, data)


class WorkPackageType(ApiModel):
    """A work package type (``GET /api/v3/types``)."""

    id: int = Field(gt=0)
    name: str = ""

    @classmethod
    def from_hal(cls, data: Mapping[str, Any]) -> Self:
        """Parse a ``Type`` resource."""
        values = {"id": data.get("id"), "name": optional_str(data.get("name")) or ""}
        return build(cls, values, data)


class WorkPackage(ApiModel):
    """A work package. ``description`` is the raw Markdown, ``None`` if not in the response.

    ``status_is_closed`` is known only when the status was embedded; otherwise map
    ``status.id`` through ``GET /api/v3/statuses`` (see ``closed_status_ids``).
    """

    id: int = Field(gt=0)
    subject: str = ""
    description: str | None = None
    display_id: str | None = None
    status: Ref | None = None
    status_is_closed: bool | None = None
    type: Ref | None = None
    assignee: Ref | None = None
    author: Ref | None = None
    project: Ref | None = None
    priority: Ref | None = None
    parent: Ref | None = None
    start_date: str | None = None
    due_date: str | None = None
    lock_version: int | None = None
    created_at: datetime | None = None
    updated_at: datetime | None = None

    @classmethod
    def from_hal(cls, data: Mapping[str, Any]) -> Self:
        """Parse a ``WorkPackage`` resource (full, or trimmed by ``select``)."""
        embedded_status = embedded(data, "status")
        display_id = data.get("displayId")
        values = {
            "id": data.get("id"),
            "subject": optional_str(data.get("subject")) or "",
            "description": formattable_raw(data.get("description")),
            "display_id": str(display_id) if isinstance(display_id, str | int) else None,
            "status": ref(data, "status"),
            "status_is_closed": (
                optional_bool(embedded_status.get("isClosed")) if embedded_status else None
            ),
            "type": ref(data, "type"),
            "assignee": ref(data, "assignee"),
            "author": ref(data, "author"),
            "project": ref(data, "project"),
            "priority": ref(data, "priority"),
            "parent": ref(data, "parent"),
            "start_date": optional_str(data.get("startDate") or data.get("date")),
            "due_date": optional_str(data.get("dueDate") or data.get("date")),
            "lock_version": data.get("lockVersion")
            if isinstance(data.get("lockVersion"), int)
            else None,
            **timestamps(data),
        }
        return build(cls, values, data)


class Activity(ApiModel):
    """One journal entry of a work package; ``comment`` is the raw Markdown ('' if none)."""

    id: int = Field(gt=0)
    comment: str = ""
    internal: bool = False
    is_comment: bool = False
    version: int | None = None
    user: Ref | None = None
    work_package_id: int | None = None
    created_at: datetime | None = None
    updated_at: datetime | None = None

    @classmethod
    def from_hal(cls, data: Mapping[str, Any]) -> Self:
        """Parse an ``Activity`` / ``Activity::Comment`` resource."""
        work_package = ref(data, "workPackage")
        version = data.get("version")
        values = {
            "id": data.get("id"),
            "comment": formattable_raw(data.get("comment")) or "",
            "internal": data.get("internal") is True,
            "is_comment": data.get("_type") == "Activity::Comment",
            "version": version if isinstance(version, int) else None,
            "user": ref(data, "user"),
            "work_package_id": work_package.id if work_package else None,
            **timestamps(data),
        }
        return build(cls, values, data)


class Relation(ApiModel):
    """A relation between two work packages (``GET /work_packages/{id}/relations``)."""

    id: int = Field(gt=0)
    type: str = ""
    reverse_type: str = ""
    from_wp: Ref | None = None
    to_wp: Ref | None = None

    @classmethod
    def from_hal(cls, data: Mapping[str, Any]) -> Self:
        """Parse a ``Relation`` resource."""
        values = {
            "id": data.get("id"),
            "type": optional_str(data.get("type")) or "",
            "reverse_type": optional_str(data.get("reverseType")) or "",
            "from_wp": ref(data, "from"),
            "to_wp": ref(data, "to"),
        }
        return build(cls, values, data)


class WikiPage(ApiModel):
    """A wiki page. Released servers send only id, title and project: ``text``, ``slug``
    and the timestamps are ``None`` unless the server exposes them."""

    id: int = Field(gt=0)
    title: str = ""
    text: str | None = None
    project: Ref | None = None
    slug: str | None = None
    created_at: datetime | None = None
    updated_at: datetime | None = None

    @classmethod
    def from_hal(cls, data: Mapping[str, Any]) -> Self:
        """Parse a ``WikiPage`` resource."""
        values = {
            "id": data.get("id"),
            "title": optional_str(data.get("title")) or "",
            "text": formattable_raw(data.get("text")),
            "project": ref(data, "project"),
            "slug": optional_str(data.get("slug")),
            **timestamps(data),
        }
        return build(cls, values, data)


def closed_status_ids(statuses: list[Status]) -> dict[int, bool]:
    """Status id → is closed, for statuses whose closed flag is known."""
    return {status.id: status.is_closed for status in statuses if status.is_closed is not None}


def resolve_status_closed(wp: WorkPackage, closed_by_status: Mapping[int, bool]) -> bool | None:
    """Whether *wp* is closed: the embedded flag, else the status table, else unknown."""
    if wp.status_is_closed is not None:
        return wp.status_is_closed
    if wp.status is not None and wp.status.id is not None:
        return closed_by_status.get(wp.status.id)
    return None
