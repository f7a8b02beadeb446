"""HAL building blocks shared by every resource: links, Formattables, collections, errors."""

from __future__ import annotations

import hashlib
import html
from datetime import datetime
from typing import Any
from urllib.parse import urlencode

from starlette.responses import JSONResponse, Response

from opindex.sandbox.corpus import Project, Status, User, WorkPackageType

Json = dict[str, Any]
ERROR_PREFIX = "urn:openproject-org:api:v3:errors:"
API = "/api/v3"
HAL_MEDIA_TYPE = "application/hal+json"


def timestamp(value: datetime) -> str:
    """ISO 8601 in UTC with milliseconds, as the API renders datetimes."""
    return value.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def duration_hours(hours: float) -> str:
    """An ISO 8601 duration (``PT1H30M``) for a number of hours."""
    total_minutes = round(hours * 60)
    whole_hours, minutes = divmod(total_minutes, 60)
    parts = "PT"
    if whole_hours:
        parts += f"{whole_hours}H"
    if minutes or not whole_hours:
        parts += f"{minutes}M"
    return parts


def link(href: str | None, title: str | None = None, **extra: Any) -> Json:
    """A HAL link object; ``href`` may be ``None`` for an unset relation."""
    result: Json = {"href": href}
    if title is not None:
        result["title"] = title
    result.update(extra)
    return result


def markdown_html(raw: str) -> str:
    """A small, safe Markdown rendering: escaped paragraphs with line breaks."""
    paragraphs = [block.strip() for block in raw.replace("\r\n", "\n").split("\n\n")]
    rendered = []
    for block in paragraphs:
        if not block:
            continue
        lines = [html.escape(line) for line in block.split("\n")]
        rendered.append('<p class="op-uc-p">' + "<br>".join(lines) + "</p>")
    return "".join(rendered)


def formattable(raw: str | None, fmt: str = "markdown") -> Json:
    """A Formattable ``{format, raw, html}``; an absent text is an empty one."""
    text = raw or ""
    rendered = markdown_html(text) if fmt == "markdown" else html.escape(text)
    return {"format": fmt, "raw": text, "html": rendered}


def error_body(name: str, message: str) -> Json:
    """The one error shape of API v3."""
    return {"_type": "Error", "errorIdentifier": ERROR_PREFIX + name, "message": message}


def user_link(users: dict[int, User], user_id: int | None) -> Json:
    """A link to a user (``href: null`` if unset), titled with the user's name."""
    if user_id is None:
        return link(None)
    user = users.get(user_id)
    return link(f"{API}/users/{user_id}", user.name if user else None)


def project_link(project: Project) -> Json:
    return link(f"{API}/projects/{project.id}", project.name)


def avatar_url(user: User) -> str:
    digest = hashlib.md5(user.login.encode("utf-8"), usedforsecurity=False).hexdigest()
    return f"https://secure.gravatar.com/avatar/{digest}?default=404&secure=true"


def user_resource(user: User, *, viewer: User) -> Json:
    """A ``User``; login, names, admin and email only for the user themself or admins."""
    first, _, last = user.name.partition(" ")
    body: Json = {
        "_type": "User",
        "id": user.id,
        "name": user.name,
        "avatar": avatar_url(user),
        "createdAt": timestamp(user.created_at),
        "updatedAt": timestamp(user.updated_at),
        "_links": {
            "self": link(f"{API}/users/{user.id}", user.name),
            "showUser": link(f"/users/{user.id}", type="text/html"),
        },
    }
    if viewer.admin or viewer.id == user.id:
        body.update(
            login=user.login,
            firstName=first[:30],
            lastName=last[:30],
            admin=user.admin,
            status="active",
            language="en",
            identityUrl=None,
        )
        if user.email:
            body["email"] = user.email
    return body


def project_resource(project: Project) -> Json:
    """A ``Project`` with the links the schema requires."""
    base = f"{API}/projects/{project.id}"
    return {
        "_type": "Project",
        "id": project.id,
        "identifier": project.identifier,
        "name": project.name,
        "active": project.active,
        "public": project.public,
        "description": formattable(project.description),
        "statusExplanation": formattable(project.status_explanation),
        "createdAt": timestamp(project.created_at),
        "updatedAt": timestamp(project.updated_at),
        "_links": {
            "self": link(base, project.name),
            "categories": link(f"{base}/categories"),
            "types": link(f"{base}/types"),
            "versions": link(f"{base}/versions"),
            "memberships": link(
                f'{API}/memberships?filters=[{{"project":{{"operator":"=","values":["{project.id}"]}}}}]'
            ),
            "workPackages": link(f"{base}/work_packages"),
            "parent": link(None),
        },
    }


def status_resource(status: Status) -> Json:
    return {
        "_type": "Status",
        "id": status.id,
        "name": status.name,
        "isClosed": status.is_closed,
        "isDefault": False,
        "isReadonly": False,
        "position": status.id,
        "_links": {"self": link(f"{API}/statuses/{status.id}", status.name)},
    }


def type_resource(work_package_type: WorkPackageType) -> Json:
    return {
        "_type": "Type",
        "id": work_package_type.id,
        "name": work_package_type.name,
        "position": work_package_type.id,
        "isDefault": False,
        "isMilestone": False,
        "_links": {"self": link(f"{API}/types/{work_package_type.id}", work_package_type.name)},
    }


def unpaginated_collection(path: str, elements: list[Json]) -> Json:
    """A Collection holding everything in one response (activities, agenda items, ...)."""
    return {
        "_type": "Collection",
        "total": len(elements),
        "count": len(elements),
        "_embedded": {"elements": elements},
        "_links": {"self": link(path)},
    }


def paginated_collection(
    path: str,
    params: dict[str, str],
    elements: list[Json],
    *,
    total: int,
    offset: int,
    page_size: int,
) -> Json:
    """An offset-paginated Collection; ``offset`` is the 1-based page number."""

    def href(page: int | str, size: int | str) -> str:
        query = {**params, "offset": str(page), "pageSize": str(size)}
        return f"{path}?{urlencode(query)}"

    links: Json = {
        "self": link(href(offset, page_size)),
        "jumpTo": link(href("{offset}", page_size), templated=True),
        "changeSize": link(href(offset, "{size}"), templated=True),
    }
    if page_size > 0 and offset * page_size < total:
        links["nextByOffset"] = link(href(offset + 1, page_size))
    if offset > 1:
        links["previousByOffset"] = link(href(offset - 1, page_size))
    return {
        "_type": "Collection",
        "total": total,
        "count": len(elements),
        "pageSize": page_size,
        "offset": offset,
        "_embedded": {"elements": elements},
        "_links": links,
    }


def hal_response(body: Json, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    """A JSON response with the HAL media type OpenProject uses."""
    return JSONResponse(body, status_code=status, headers=headers, media_type=HAL_MEDIA_TYPE)
