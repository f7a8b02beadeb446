"""Bad query parameters get OpenProject's 400 error body, never a traceback, and harm nothing."""

from __future__ import annotations

import json

import pytest
from tests.support.sandbox import SandboxHandle

ERROR_PREFIX = "urn:openproject-org:api:v3:errors:"


WPS = "/api/v3/work_packages"
MEETINGS = "/api/v3/meetings"


def flt(name: str, operator: str | None, values: list[str] | None) -> dict[str, str]:
    """A ``filters`` parameter holding one filter (``operator=None`` leaves it out)."""
    spec: dict[str, object] = {"values": values}
    if operator is not None:
        spec["operator"] = operator
    return {"filters": json.dumps([{name: spec}])}


@pytest.mark.parametrize(
    ("path", "params", "name"),
    [
        (WPS, {"filters": "[{"}, "InvalidQuery"),
        (WPS, {"filters": '{"status": {}}'}, "InvalidQuery"),
        (WPS, flt("bogus", "=", ["1"]), "InvalidQuery"),
        (WPS, flt("status", "~", ["1"]), "InvalidQuery"),
        (WPS, flt("status", None, ["1"]), "InvalidQuery"),
        (WPS, flt("id", "=", ["x"]), "InvalidQuery"),
        (WPS, flt("updatedAt", "<>d", ["yesterday", ""]), "InvalidQuery"),
        (WPS, flt("updatedAt", "<>d", ["2026-01-01T00:00:00Z"]), "InvalidQuery"),
        (WPS, {"offset": "-1"}, "InvalidQuery"),
        (WPS, {"offset": "0"}, "InvalidQuery"),
        (WPS, {"offset": "two"}, "InvalidQuery"),
        (WPS, {"pageSize": "-5"}, "InvalidQuery"),
        (WPS, {"pageSize": "lots"}, "InvalidQuery"),
        (WPS, {"sortBy": '[["colour","asc"]]'}, "InvalidQuery"),
        (WPS, {"sortBy": '[["id","sideways"]]'}, "InvalidQuery"),
        (WPS, {"sortBy": "id"}, "InvalidQuery"),
        (WPS, {"select": "total,elements/colour"}, "InvalidSignal"),
        (MEETINGS, flt("updatedAt", "<>d", ["2026-01-01", ""]), "InvalidQuery"),
        (MEETINGS, flt("time", "=", ["soon"]), "InvalidQuery"),
        (MEETINGS, {"offset": "-2"}, "InvalidQuery"),
        ("/api/v3/projects", flt("name", "=", ["x"]), "InvalidQuery"),
    ],
)
def test_bad_parameters_get_a_400_error_body(
    shared_sandbox: SandboxHandle, path: str, params: dict[str, str], name: str
) -> None:
    response = shared_sandbox.get(path, params=params)
    assert response.status_code == 400
    assert response.headers["content-type"].startswith("application/hal+json")
    body = response.json()
    assert body["_type"] == "Error"
    assert body["errorIdentifier"] == ERROR_PREFIX + name
    assert body["message"] and "Traceback" not in body["message"]


def test_unknown_filter_message_names_the_filter(shared_sandbox: SandboxHandle) -> None:
    filters = json.dumps([{"colour": {"operator": "=", "values": ["red"]}}])
    body = shared_sandbox.get("/api/v3/work_packages", params={"filters": filters}).json()
    assert "colour" in body["message"]


def test_snake_case_filter_names_are_accepted(shared_sandbox: SandboxHandle) -> None:
    filters = json.dumps([{"status_id": {"operator": "o", "values": None}}])
    response = shared_sandbox.get("/api/v3/work_packages", params={"filters": filters})
    assert response.status_code == 200


def test_unknown_paths_and_methods_get_error_bodies(shared_sandbox: SandboxHandle) -> None:
    for path in ("/api/v3/nothing", "/api/v3/work_packages/abc", "/api/v3/wiki_pages/0"):
        response = shared_sandbox.get(path)
        assert response.status_code == 404, path
        assert response.json()["errorIdentifier"] == ERROR_PREFIX + "NotFound"
    with shared_sandbox.client() as client:
        response = client.delete("/api/v3/work_packages/101")
    assert response.status_code == 405
    assert response.json()["_type"] == "Error"


def test_the_server_keeps_serving_after_bad_requests(shared_sandbox: SandboxHandle) -> None:
    shared_sandbox.get("/api/v3/work_packages", params={"filters": "[{"})
    assert shared_sandbox.get("/api/v3/work_packages/101").status_code == 200
