"""Reading HAL+JSON: link hrefs → ids, link titles and embedded resources → references."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict

UNDISCLOSED_HREF = "urn:openproject-org:api:v3:undisclosed"
_DIGITS = re.compile(r"\d+")


class Ref(BaseModel):
    """A linked resource as far as a response reveals it: id and display name.

    ``id`` is ``None`` when the link exists but the target is undisclosed (invisible to the
    account) or not addressed by a numeric id.
    """

    model_config = ConfigDict(frozen=True, extra="ignore")

    id: int | None = None
    name: str | None = None


def href_id(href: object) -> int | None:
    """The numeric id at the end of a resource href, else ``None``.

    ``/api/v3/users/5`` → 5, ``https://host/op/api/v3/users/5?x=1`` → 5, ``api/v3/users/14``
    → 14; ``None``, ``urn:openproject-org:api:v3:undisclosed``, templated or non-numeric
    hrefs (``/api/v3/project_statuses/on_track``) → ``None``.
    """
    if not isinstance(href, str):
        return None
    href = href.strip()
    if not href or href.startswith("urn:") or "{" in href:
        return None
    path = urlsplit(href).path.rstrip("/")
    last = path.rsplit("/", 1)[-1]
    if not _DIGITS.fullmatch(last):
        return None
    value = int(last)
    return value if value > 0 else None


def link(data: Mapping[str, Any], name: str) -> Mapping[str, Any] | None:
    """``_links[name]`` if it is a single link object."""
    links = data.get("_links")
    if not isinstance(links, Mapping):
        return None
    value = links.get(name)
    return value if isinstance(value, Mapping) else None


def link_list(data: Mapping[str, Any], name: str) -> list[Mapping[str, Any]] | None:
    """``_links[name]`` if it is an array of links; ``None`` if the link is absent."""
    links = data.get("_links")
    if not isinstance(links, Mapping) or name not in links:
        return None
    value = links.get(name)
    if isinstance(value, list):
        return [item for item in value if isinstance(item, Mapping)]
    return None


def embedded(data: Mapping[str, Any], name: str) -> Mapping[str, Any] | None:
    """``_embedded[name]`` if it is an object."""
    container = data.get("_embedded")
    if not isinstance(container, Mapping):
        return None
    value = container.get(name)
    return value if isinstance(value, Mapping) else None


def embedded_elements(data: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The ``_embedded.elements`` of a collection (objects only)."""
    container = data.get("_embedded")
    if not isinstance(container, Mapping):
        return []
    elements = container.get("elements")
    if not isinstance(elements, list):
        return []
    return [item for item in elements if isinstance(item, Mapping)]


def ref(data: Mapping[str, Any], name: str) -> Ref | None:
    """The resource linked as *name*, from ``_embedded`` and/or ``_links``.

    ``None`` when neither is present or the link's href is ``null`` (unset). An undisclosed
    link gives a ``Ref`` without id.
    """
    target = embedded(data, name)
    hal_link = link(data, name)
    if target is None and (hal_link is None or hal_link.get("href") is None):
        return None
    ref_id: int | None = None
    ref_name: str | None = None
    if target is not None:
        raw_id = target.get("id")
        ref_id = raw_id if isinstance(raw_id, int) and not isinstance(raw_id, bool) else None
        ref_name = _text_or_none(target.get("name"))
    if hal_link is not None:
        if ref_id is None:
            ref_id = href_id(hal_link.get("href"))
        if ref_name is None:
            ref_name = _text_or_none(hal_link.get("title"))
    return Ref(id=ref_id, name=ref_name)


def refs_from_links(items: list[Mapping[str, Any]]) -> tuple[Ref, ...]:
    """References from an array of links (or embedded resources with ``id``/``name``)."""
    result: list[Ref] = []
    for item in items:
        if "href" in item and item.get("href") is None:
            continue
        raw_id = item.get("id")
        ref_id = raw_id if isinstance(raw_id, int) and not isinstance(raw_id, bool) else None
        if ref_id is None:
            ref_id = href_id(item.get("href"))
        name = _text_or_none(item.get("name")) or _text_or_none(item.get("title"))
        result.append(Ref(id=ref_id, name=name))
    return tuple(result)


def formattable_raw(value: object) -> str | None:
    """The ``raw`` text of a Formattable; ``None`` when the property is absent or null.

    A Formattable without ``raw`` (or with ``raw: null``) counts as empty text.
    """
    if value is None:
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, Mapping):
        raw = value.get("raw")
        return raw if isinstance(raw, str) else ""
    return None


def _text_or_none(value: object) -> str | None:
    if isinstance(value, str) and value.strip():
        return value
    return None
