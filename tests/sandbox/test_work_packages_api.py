"""Work packages and activities as OpenProject serves them: defaults, paging, filters, auth."""

from __future__ import annotations

import base64
import json
from typing import Any

import httpx
import pytest
from tests.support.corpora import VARIED_BULK_IDS, VARIED_PAGE_SIZE_MAX, varied_corpus
from tests.support.sandbox import (
    ADMIN_KEY,
    CLOSED_STATUS,
    MEMBER_KEY,
    OUTSIDER_KEY,
    SandboxHandle,
)

WPS = "/api/v3/work_packages"
ERROR_PREFIX = "urn:openproject-org:api:v3:errors:"


def _ids(body: dict[str, Any]) -> list[int]:
    return [element["id"] for element in body["_embedded"]["elements"]]


def _all_ids(sandbox: SandboxHandle, key: str = ADMIN_KEY, **params: str) -> list[int]:
    """Every id of a listing, walking the pages until ``nextByOffset`` disappears."""
    found: list[int] = []
    page = 1
    while True:
        query = {"pageSize": "-1", "offset": str(page), **params}
        response = sandbox.get(WPS, key, query)
        assert response.status_code == 200, response.text
        body = response.json()
        found += _ids(body)
        if "nextByOffset" not in body["_links"]:
            return found
        page += 1


def _corpus_ids(*, closed: bool | None = None, projects: set[int] | None = None) -> set[int]:
    """Work-package ids of the fixture corpus, outside the archived project 4."""
    result = set()
    for wp in varied_corpus()["work_packages"]:
        if wp["project"] == 4 or (projects is not None and wp["project"] not in projects):
            continue
        if closed is not None and (wp["status"] == CLOSED_STATUS) != closed:
            continue
        result.add(wp["id"])
    return result


def test_no_filters_parameter_means_open_work_packages_only(shared_sandbox: SandboxHandle) -> None:
    body = shared_sandbox.get(WPS).json()
    assert body["total"] == len(_corpus_ids(closed=False))
    assert 102 not in _ids(body)
    everything = shared_sandbox.get(WPS, params={"filters": "[]", "pageSize": "30"}).json()
    assert everything["total"] == len(_corpus_ids())


def test_default_page_is_the_first_twenty_in_id_order(shared_sandbox: SandboxHandle) -> None:
    body = shared_sandbox.get(WPS).json()
    expected = sorted(_corpus_ids(closed=False))
    assert (body["pageSize"], body["offset"], body["count"]) == (20, 1, 20)
    assert _ids(body) == expected[:20]
    assert "previousByOffset" not in body["_links"]
    assert "offset=2" in body["_links"]["nextByOffset"]["href"]


def test_offset_is_a_one_based_page_number(shared_sandbox: SandboxHandle) -> None:
    expected = sorted(_corpus_ids(closed=False))
    second = shared_sandbox.get(WPS, params={"offset": "2", "pageSize": "10"}).json()
    assert _ids(second) == expected[10:20]
    assert second["offset"] == 2
    assert "offset=1" in second["_links"]["previousByOffset"]["href"]


def test_last_page_has_no_next_link_and_pages_cover_everything(
    shared_sandbox: SandboxHandle,
) -> None:
    seen: list[int] = []
    page = 1
    while True:
        body = shared_sandbox.get(WPS, params={"offset": str(page), "pageSize": "7"}).json()
        seen += _ids(body)
        if "nextByOffset" not in body["_links"]:
            break
        page += 1
    assert seen == sorted(_corpus_ids(closed=False))
    assert page == -(-len(seen) // 7)
    beyond = shared_sandbox.get(WPS, params={"offset": str(page + 5), "pageSize": "7"}).json()
    assert beyond["count"] == 0 and beyond["total"] == len(seen)


@pytest.mark.parametrize(
    ("asked", "served"), [("100", VARIED_PAGE_SIZE_MAX), ("-1", VARIED_PAGE_SIZE_MAX)]
)
def test_page_size_is_clamped_to_the_maximum(
    shared_sandbox: SandboxHandle, asked: str, served: int
) -> None:
    body = shared_sandbox.get(WPS, params={"pageSize": asked}).json()
    assert body["pageSize"] == served
    assert body["count"] == min(served, body["total"])


def test_page_size_zero_returns_only_the_total(shared_sandbox: SandboxHandle) -> None:
    body = shared_sandbox.get(WPS, params={"pageSize": "0"}).json()
    assert body["count"] == 0 and body["total"] == len(_corpus_ids(closed=False))


def test_visibility_follows_membership_public_projects_and_admin(
    shared_sandbox: SandboxHandle,
) -> None:
    assert set(_all_ids(shared_sandbox, ADMIN_KEY, filters="[]")) == _corpus_ids()
    assert set(_all_ids(shared_sandbox, MEMBER_KEY, filters="[]")) == _corpus_ids(
        projects={1, 2, 3}
    )
    outsider = set(_all_ids(shared_sandbox, OUTSIDER_KEY, filters="[]"))
    assert outsider == _corpus_ids(projects={1, 3})
    hidden = shared_sandbox.get(f"{WPS}/103", OUTSIDER_KEY)
    assert hidden.status_code == 404
    assert hidden.json()["errorIdentifier"] == ERROR_PREFIX + "NotFound"
    assert shared_sandbox.get(f"{WPS}/103", MEMBER_KEY).status_code == 200


def test_archived_project_content_is_invisible_even_to_admins(
    shared_sandbox: SandboxHandle,
) -> None:
    assert shared_sandbox.get(f"{WPS}/150").status_code == 404
    admin_projects = shared_sandbox.get("/api/v3/projects").json()
    assert 4 in _ids(admin_projects)
    member_projects = shared_sandbox.get("/api/v3/projects", MEMBER_KEY).json()
    assert _ids(member_projects) == [1, 2, 3]


def test_missing_and_wrong_credentials_get_401_bodies(shared_sandbox: SandboxHandle) -> None:
    missing = shared_sandbox.get(WPS, api_key=None)
    assert missing.status_code == 401
    assert missing.json()["errorIdentifier"] == ERROR_PREFIX + "Unauthenticated"
    assert "authenticated" in missing.json()["message"]
    wrong = shared_sandbox.get(WPS, api_key="no-such-key")
    assert wrong.status_code == 401
    assert wrong.json()["_type"] == "Error"
    assert 'error="invalid_token"' in wrong.headers["WWW-Authenticate"]
    other_user = base64.b64encode(f"bob:{MEMBER_KEY}".encode()).decode()
    basic = httpx.get(
        f"{shared_sandbox.base_url}/api/v3/users/me",
        headers={"Authorization": f"Basic {other_user}"},
    )
    assert basic.status_code == 401


def test_bearer_token_authenticates(shared_sandbox: SandboxHandle) -> None:
    response = httpx.get(
        f"{shared_sandbox.base_url}/api/v3/users/me",
        headers={"Authorization": f"Bearer {MEMBER_KEY}"},
    )
    assert response.status_code == 200
    assert response.json()["login"] == "bob"


def test_work_package_shape(shared_sandbox: SandboxHandle) -> None:
    body = shared_sandbox.get(f"{WPS}/101").json()
    assert body["_type"] == "WorkPackage" and body["subject"] == "Renew TLS certificate"
    assert body["description"]["raw"] == "Description of work package 101."
    assert body["description"]["format"] == "markdown"
    assert body["updatedAt"] == "2026-03-04T12:00:00.000Z"
    links = body["_links"]
    assert links["project"] == {"href": "/api/v3/projects/1", "title": "Operations"}
    assert links["status"]["title"] == "New" and links["type"]["title"] == "Task"
    assert links["author"]["title"] == "Ada Admin"
    assert links["assignee"] == {"href": "/api/v3/users/2", "title": "Bob Müller"}
    unassigned = shared_sandbox.get(f"{WPS}/102").json()
    assert unassigned["_links"]["assignee"]["href"] is None


def test_activities_are_unpaginated_and_internal_ones_only_for_admins(
    shared_sandbox: SandboxHandle,
) -> None:
    admin = shared_sandbox.get(f"{WPS}/101/activities").json()
    assert "pageSize" not in admin and admin["total"] == 3
    elements = admin["_embedded"]["elements"]
    assert [(e["id"], e["_type"], e["version"]) for e in elements] == [
        (9001, "Activity::Comment", 1),
        (9002, "Activity::Comment", 2),
        (9003, "Activity", 3),
    ]
    assert elements[1]["internal"] is True
    assert elements[2]["comment"]["raw"] == ""
    assert elements[2]["details"][0]["raw"] == "Status changed from New to In progress"
    member = shared_sandbox.get(f"{WPS}/101/activities", MEMBER_KEY).json()
    assert [e["id"] for e in member["_embedded"]["elements"]] == [9001, 9003]


def _filtered(sandbox: SandboxHandle, *filters: dict[str, Any], **params: str) -> list[int]:
    return _all_ids(sandbox, filters=json.dumps(list(filters)), **params)


def test_updated_at_between_is_inclusive_with_open_bounds(shared_sandbox: SandboxHandle) -> None:
    since = {"updatedAt": {"operator": "<>d", "values": ["2026-03-04T12:00:00Z", ""]}}
    found = _filtered(shared_sandbox, since)
    assert 101 in found and 102 not in found
    assert set(found) == {101, *VARIED_BULK_IDS}
    until = {"updated_at": {"operator": "<>d", "values": ["", "2026-03-04T12:00:00Z"]}}
    assert set(_filtered(shared_sandbox, until)) == {101, 102, 103, 104}


def test_status_type_assignee_subject_project_and_id_filters(
    shared_sandbox: SandboxHandle,
) -> None:
    closed = {"status": {"operator": "c", "values": None}}
    assert _filtered(shared_sandbox, closed) == [102]
    by_id = {"status_id": {"operator": "=", "values": [str(CLOSED_STATUS)]}}
    assert _filtered(shared_sandbox, by_id) == [102]
    bugs = {"type": {"operator": "=", "values": ["2"]}}
    assert _filtered(shared_sandbox, bugs) == [104]
    nobody = {"assignee": {"operator": "!*", "values": None}}
    assert _filtered(shared_sandbox, nobody) == [102]
    subject = {"subject": {"operator": "~", "values": ["tls CERT"]}}
    assert _filtered(shared_sandbox, subject) == [101]
    project = {"project": {"operator": "=", "values": ["2", "3"]}}
    assert _filtered(shared_sandbox, project) == [103, 104]
    ids = {"id": {"operator": "=", "values": ["104", "101"]}}
    assert _filtered(shared_sandbox, ids, {"status": {"operator": "o", "values": None}}) == [
        101,
        104,
    ]


def test_sort_by_updated_at_then_id(shared_sandbox: SandboxHandle) -> None:
    sort = json.dumps([["updatedAt", "desc"], ["id", "asc"]])
    found = _filtered(shared_sandbox, sortBy=sort)
    stamps = {wp["id"]: wp["updatedAt"] for wp in varied_corpus()["work_packages"]}
    # Python's sort is stable even when reversed: ties keep ascending id order.
    assert found == sorted(sorted(_corpus_ids()), key=lambda i: stamps[i], reverse=True)


def test_select_trims_the_payload(shared_sandbox: SandboxHandle) -> None:
    params = {"filters": "[]", "select": "total,elements/id,elements/updatedAt", "pageSize": "5"}
    body = shared_sandbox.get(WPS, params=params).json()
    assert set(body) == {"total", "_embedded"}
    assert body["total"] == len(_corpus_ids())
    assert all(set(e) == {"id", "updatedAt"} for e in body["_embedded"]["elements"])


def test_project_scoped_list_by_id_or_identifier(shared_sandbox: SandboxHandle) -> None:
    by_id = _all_ids(shared_sandbox, filters="[]")
    scoped = shared_sandbox.get("/api/v3/projects/2/work_packages", params={"filters": "[]"})
    assert _ids(scoped.json()) == [103]
    named = shared_sandbox.get("/api/v3/projects/community/work_packages").json()
    assert _ids(named) == [104]
    assert 103 in by_id
    hidden = shared_sandbox.get("/api/v3/projects/2/work_packages", OUTSIDER_KEY)
    assert hidden.status_code == 404
