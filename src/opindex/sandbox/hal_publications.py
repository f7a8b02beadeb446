"""HAL representers of news, documents, versions, forum posts and attachments."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from opindex.sandbox.corpus import Document, FileAttachment, News, Post, User, Version
from opindex.sandbox.hal_core import (
    API,
    Json,
    formattable,
    link,
    project_link,
    project_resource,
    timestamp,
    unpaginated_collection,
    user_link,
    user_resource,
)
from opindex.sandbox.store import SandboxStore

CONTAINER_TITLES: dict[str, Callable[[Any], str]] = {
    "work_packages": lambda record: record.subject,
    "wiki_pages": lambda record: record.title,
    "meetings": lambda record: record.title,
    "documents": lambda record: record.title,
    "posts": lambda record: record.subject,
}


def news_resource(store: SandboxStore, news: News, *, viewer: User | None = None) -> Json:
    """A ``News``: no ``updatedAt`` (the API has none). Fetched on its own (pass the
    *viewer*), with its project and author embedded as OpenProject does."""
    project = store.projects[news.project]
    body: Json = {
        "_type": "News",
        "id": news.id,
        "title": news.title,
        "summary": news.summary,
        "description": formattable(news.description),
        "createdAt": timestamp(news.created_at),
        "_links": {
            "self": link(f"{API}/news/{news.id}", news.title),
            "project": project_link(project),
            "author": user_link(store.users, news.author),
        },
    }
    if viewer is not None:
        embedded: Json = {"project": project_resource(project)}
        author = store.users.get(news.author)
        if author is not None:
            embedded["author"] = user_resource(author, viewer=viewer)
        body["_embedded"] = embedded
    return body


def document_resource(store: SandboxStore, document: Document, *, embed: bool = False) -> Json:
    """A ``Document``; fetched on its own, with its project and attachments embedded."""
    base = f"{API}/documents/{document.id}"
    project = store.projects[document.project]
    body: Json = {
        "_type": "Document",
        "id": document.id,
        "title": document.title,
        "description": formattable(document.description),
        "createdAt": timestamp(document.created_at),
        "_links": {
            "self": link(base, document.title),
            "project": project_link(project),
            "attachments": link(f"{base}/attachments"),
        },
    }
    if embed:
        body["_embedded"] = {
            "project": project_resource(project),
            "attachments": attachment_collection(store, "documents", document.id),
        }
    return body


def version_resource(store: SandboxStore, version: Version) -> Json:
    """A ``Version`` (its description is plain text, as in OpenProject)."""
    project = store.projects[version.project]
    return {
        "_type": "Version",
        "id": version.id,
        "name": version.name,
        "description": formattable(version.description, "plain"),
        "startDate": version.start_date.isoformat() if version.start_date else None,
        "endDate": version.end_date.isoformat() if version.end_date else None,
        "status": version.status,
        "sharing": version.sharing,
        "createdAt": timestamp(version.created_at),
        "updatedAt": timestamp(version.updated_at),
        "_links": {
            "self": link(f"{API}/versions/{version.id}", version.name),
            "schema": link(f"{API}/versions/schema"),
            "definingProject": project_link(project),
            "availableInProjects": link(f"{API}/versions/{version.id}/projects"),
        },
    }


def post_resource(store: SandboxStore, post: Post) -> Json:
    """A ``Post`` (forum message): its subject, project and attachments."""
    base = f"{API}/posts/{post.id}"
    project = store.projects[post.project]
    return {
        "_type": "Post",
        "id": post.id,
        "subject": post.subject,
        "_embedded": {"project": project_resource(project)},
        "_links": {
            "self": link(base, post.subject),
            "attachments": link(f"{base}/attachments"),
            "project": project_link(project),
        },
    }


def container_link(store: SandboxStore, kind: str, container_id: int) -> Json:
    """A link to an attachment's container, titled like the container's own self link."""
    tables: dict[str, dict[int, Any]] = {
        "work_packages": store.work_packages,
        "wiki_pages": store.wiki_pages,
        "meetings": store.meetings,
        "documents": store.documents,
        "posts": store.posts,
    }
    record = tables[kind].get(container_id)
    title = CONTAINER_TITLES[kind](record) if record is not None else None
    return link(f"{API}/{kind}/{container_id}", title)


def attachment_resource(store: SandboxStore, attachment: FileAttachment) -> Json:
    """An ``Attachment``; ``digest`` is ``{algorithm, hash}`` as OpenProject renders it, and
    the download location is the sandbox's own content endpoint (local file storage)."""
    facts = store.files.facts(attachment)
    base = f"{API}/attachments/{attachment.id}"
    return {
        "_type": "Attachment",
        "id": attachment.id,
        "title": attachment.file_name,
        "fileName": attachment.file_name,
        "fileSize": facts.size,
        "description": formattable(attachment.description, "plain"),
        "contentType": facts.content_type,
        "digest": {"algorithm": "md5", "hash": facts.md5},
        "createdAt": timestamp(attachment.created_at),
        "_links": {
            "self": link(base, attachment.file_name),
            "container": container_link(store, attachment.container.kind, attachment.container.id),
            "author": user_link(store.users, attachment.author),
            "downloadLocation": link(f"{base}/content"),
            "staticDownloadLocation": link(f"{base}/content"),
        },
    }


def attachment_collection(store: SandboxStore, kind: str, container_id: int) -> Json:
    """Every attachment of one container, unpaginated (as OpenProject lists them)."""
    elements = [attachment_resource(store, a) for a in store.attachments_of(kind, container_id)]
    return unpaginated_collection(f"{API}/{kind}/{container_id}/attachments", elements)
