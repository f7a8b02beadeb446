"""Routes for attachments: one attachment, its content, and the attachments of a container."""

from __future__ import annotations

from urllib.parse import quote

from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

from opindex.sandbox.auth import authenticate
from opindex.sandbox.hal_core import API, hal_response
from opindex.sandbox.hal_publications import attachment_collection, attachment_resource
from opindex.sandbox.store import not_found


async def attachment_by_id(request: Request) -> Response:
    state, user = authenticate(request)
    attachment = state.store.visible_attachment(user, request.path_params["attachment_id"])
    return hal_response(attachment_resource(state.store, attachment))


def content_disposition(file_name: str) -> str:
    """``attachment`` with an ASCII fallback name and the RFC 5987 UTF-8 name."""
    fallback = file_name.encode("ascii", "replace").decode("ascii").replace('"', "")
    return f"attachment; filename=\"{fallback}\"; filename*=UTF-8''{quote(file_name)}"


async def attachment_content(request: Request) -> Response:
    """The file's bytes, streamed, with its type, length and name (served directly, as an
    instance with local file storage does; no redirect to an object store)."""
    state, user = authenticate(request)
    attachment = state.store.visible_attachment(user, request.path_params["attachment_id"])
    length, chunks = state.store.files.open(attachment)
    media_type = state.store.files.facts(attachment).content_type
    headers = {
        "Content-Length": str(length),
        "Content-Disposition": content_disposition(attachment.file_name),
    }
    return StreamingResponse(chunks, media_type=media_type, headers=headers)


def _container_route(kind: str) -> Route:
    async def listing(request: Request) -> Response:
        state, user = authenticate(request)
        container_id = request.path_params["container_id"]
        project = state.store.container_project(kind, container_id)
        if project is None or project not in state.store.content_projects(user):
            raise not_found()
        return hal_response(attachment_collection(state.store, kind, container_id))

    return Route(f"{API}/{kind}/{{container_id:int}}/attachments", listing)


ROUTES = [
    Route(f"{API}/attachments/{{attachment_id:int}}", attachment_by_id),
    Route(f"{API}/attachments/{{attachment_id:int}}/content", attachment_content),
    *(_container_route(kind) for kind in ("wiki_pages", "meetings", "documents", "posts")),
]
