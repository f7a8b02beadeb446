"""Typed views of news, documents, versions and attachments (files attached to records).

Like the other models: flat, frozen, ``from_hal`` reads one HAL resource, unknown
properties are ignored and missing optional ones become ``None``. News and documents have
no ``updatedAt`` in API v3; their change detection compares content instead.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any, Literal, Self

from pydantic import Field

from opindex.openproject.api_models import ApiModel, build, optional_str, timestamps
from opindex.openproject.hal import Ref, formattable_raw, link, ref

ContainerKind = Literal["work_package", "wiki_page", "meeting", "document"]
CONTAINER_PATHS: Mapping[ContainerKind, str] = {
    "work_package": "work_packages",
    "wiki_page": "wiki_pages",
    "meeting": "meetings",
    "document": "documents",
}
"""The API collection of each kind that can hold attachments (``…/{id}/attachments``).

API v3 lists attachments of work packages, wiki pages and meetings; a document links its
own (``_links.attachments``, the same path shape). News items have no attachment list."""


class News(ApiModel):
    """A news item (``GET /api/v3/news``): title, summary and a Formattable description."""

    id: int = Field(gt=0)
    title: str = ""
    summary: str | None = None
    description: str | None = None
    project: Ref | None = None
    author: Ref | None = None
    created_at: datetime | None = None
    updated_at: datetime | None = None

    @classmethod
    def from_hal(cls, data: Mapping[str, Any]) -> Self:
        """Parse a ``News`` resource."""
        values = {
            "id": data.get("id"),
            "title": optional_str(data.get("title")) or "",
            "summary": optional_str(data.get("summary")),
            "description": formattable_raw(data.get("description")),
            "project": ref(data, "project"),
            "author": ref(data, "author"),
            **timestamps(data),
        }
        return build(cls, values, data)


class Document(ApiModel):
    """A document (``GET /api/v3/documents``): a title and a Formattable description."""

    id: int = Field(gt=0)
    title: str = ""
    description: str | None = None
    project: Ref | None = None
    created_at: datetime | None = None
    updated_at: datetime | None = None

    @classmethod
    def from_hal(cls, data: Mapping[str, Any]) -> Self:
        """Parse a ``Document`` resource."""
        values = {
            "id": data.get("id"),
            "title": optional_str(data.get("title")) or "",
            "description": formattable_raw(data.get("description")),
            "project": ref(data, "project"),
            **timestamps(data),
        }
        return build(cls, values, data)


class Version(ApiModel):
    """A version (``GET /api/v3/versions``), owned by its defining project."""

    id: int = Field(gt=0)
    name: str = ""
    description: str | None = None
    status: str | None = None
    defining_project: Ref | None = None
    created_at: datetime | None = None
    updated_at: datetime | None = None

    @classmethod
    def from_hal(cls, data: Mapping[str, Any]) -> Self:
        """Parse a ``Version`` resource."""
        values = {
            "id": data.get("id"),
            "name": optional_str(data.get("name")) or "",
            "description": formattable_raw(data.get("description")),
            "status": optional_str(data.get("status")),
            "defining_project": ref(data, "definingProject"),
            **timestamps(data),
        }
        return build(cls, values, data)


class Attachment(ApiModel):
    """A file attached to a record (``GET /api/v3/{container}/{id}/attachments``).

    Attachments are immutable: a changed file is a new attachment (a new id), so a file is
    read and its text extracted once, keyed by id and digest.
    """

    id: int = Field(gt=0)
    file_name: str = ""
    file_size: int | None = None
    content_type: str | None = None
    description: str | None = None
    digest: str | None = None
    container: Ref | None = None
    author: Ref | None = None
    created_at: datetime | None = None

    @classmethod
    def from_hal(cls, data: Mapping[str, Any]) -> Self:
        """Parse an ``Attachment`` resource."""
        size = data.get("fileSize")
        digest = data.get("digest")
        digest_text = None
        if isinstance(digest, Mapping) and isinstance(digest.get("hash"), str):
            digest_text = f"{digest.get('algorithm') or 'md5'}:{digest['hash']}"
        container_link = link(data, "container")
        values = {
            "id": data.get("id"),
            "file_name": optional_str(data.get("fileName")) or "",
            "file_size": size if isinstance(size, int) and not isinstance(size, bool) else None,
            "content_type": optional_str(data.get("contentType")),
            "description": formattable_raw(data.get("description")),
            "digest": digest_text,
            "container": ref(data, "container") if container_link is not None else None,
            "author": ref(data, "author"),
            "created_at": data.get("createdAt"),
        }
        return build(cls, values, data)
