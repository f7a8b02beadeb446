"""What a webhook delivery names: work package ids to re-fetch, or a project change.

Only ids are taken from the payload. OpenProject renders it as its System user, unfiltered
by permissions (internal comments, invisible projects), so nothing else in it is trusted
or stored: the records are read again with the tenant's own credential. An id that is not
an integer in 1 … 2⁶³−1 names nothing (the delivery is ignored, and says why).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from opindex.envelope import MAX_ID

WORK_PACKAGE_HREF = re.compile(r"/api/v3/work_packages/(\d+)$")
WORK_PACKAGE_EVENTS = ("work_package:created", "work_package:updated")
COMMENT_EVENTS = ("work_package_comment:comment", "work_package_comment:internal_comment")
PROJECT_EVENTS = ("project:created", "project:updated")
ATTACHMENT_EVENTS = ("attachment:created",)


@dataclass(frozen=True, slots=True)
class Targets:
    """Work package ids to re-fetch, and whether a whole manifest run is due (a project
    changed: its name, its members, and so which records the account sees)."""

    work_packages: frozenset[int] = field(default_factory=frozenset)
    manifest: bool = False
    ignored_because: str | None = field(default=None, compare=False)
    """Why an event of a kind opindex indexes names nothing (an id out of range, …)."""

    @property
    def empty(self) -> bool:
        """True when the delivery names nothing opindex indexes."""
        return not self.work_packages and not self.manifest


def targets_of(payload: object) -> Targets:
    """The targets a decoded webhook body names (empty for events opindex ignores)."""
    if not isinstance(payload, dict):
        return Targets()
    action = payload.get("action")
    if action in WORK_PACKAGE_EVENTS:
        return _ids(action, _positive(_get(payload, "work_package", "id")))
    if action in COMMENT_EVENTS:
        return _ids(action, _href_id(_get(payload, "activity", "_links", "workPackage", "href")))
    if action in ATTACHMENT_EVENTS:
        href = _get(payload, "attachment", "_links", "container", "href")
        if isinstance(href, str) and "/work_packages/" not in href:
            return Targets()  # attached to a meeting or a wiki page: re-read by polling
        return _ids(action, _href_id(href))
    if action in PROJECT_EVENTS:
        return Targets(manifest=True)
    return Targets()


def _get(data: dict[str, Any], *keys: str) -> object:
    value: object = data
    for key in keys:
        if not isinstance(value, dict):
            return None
        value = value.get(key)
    return value


def _positive(value: object) -> int | None:
    if isinstance(value, int) and not isinstance(value, bool) and 0 < value <= MAX_ID:
        return value
    return None


def _href_id(href: object) -> int | None:
    if not isinstance(href, str):
        return None
    match = WORK_PACKAGE_HREF.search(href)
    if match is None or len(match.group(1)) > len(str(MAX_ID)):
        return None  # more digits than any id: never parsed (nor int()'s digit limit hit)
    return _positive(int(match.group(1)))


def _ids(action: object, wp_id: int | None) -> Targets:
    if wp_id is None:
        return Targets(ignored_because=f"{action} names no work package id in 1 … {MAX_ID}")
    return Targets(frozenset({wp_id}))
