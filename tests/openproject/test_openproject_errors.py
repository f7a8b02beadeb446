"""Error responses → typed exceptions, using the error bodies of the API examples."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from fake_openproject import FakeOpenProject, error_body, make_client
from tests.support.openapi import EXAMPLES, load_example, load_schema

from opindex.errors import (
    AuthenticationError,
    InvalidQueryError,
    NotFoundError,
    OpenProjectError,
    PermissionDeniedError,
    RateLimitedError,
    ServerError,
)
from opindex.openproject import NO_RETRY
from opindex.openproject.error_mapping import error_from_response

EXPECTED_TYPE: dict[int, type[OpenProjectError]] = {
    400: InvalidQueryError,
    401: AuthenticationError,
    403: PermissionDeniedError,
    404: NotFoundError,
    429: RateLimitedError,
    500: ServerError,
}


def _error_examples() -> Iterator[tuple[str, int, dict[str, Any]]]:
    """Every ``_type: Error`` body in the example files, with the status it is documented
    under (``responses.<status>``); response-component files are given their status."""
    component_status = {"invalid_query.yml": 400, "invalid_request_body.yml": 400}
    for path in sorted(EXAMPLES.glob("*.yml")):
        document = load_example(path.name)
        default = component_status.get(path.name)
        yield from _walk(path.name, document, default)


def _walk(name: str, node: Any, status: int | None) -> Iterator[tuple[str, int, dict[str, Any]]]:
    if isinstance(node, dict):
        if node.get("_type") == "Error" and status is not None:
            yield name, status, node
            return
        for key, value in node.items():
            child_status = int(key) if isinstance(key, str) and key.isdigit() else status
            yield from _walk(name, value, child_status)
    elif isinstance(node, list):
        for value in node:
            yield from _walk(name, value, status)


ERROR_EXAMPLES = [
    pytest.param(status, body, id=f"{name}-{status}-{body['errorIdentifier'].rsplit(':', 1)[-1]}")
    for name, status, body in _error_examples()
]


def test_examples_provide_error_bodies() -> None:
    statuses = {param.values[0] for param in ERROR_EXAMPLES}
    assert {400, 403, 404} <= statuses


@pytest.mark.parametrize(("status", "body"), ERROR_EXAMPLES)
async def test_example_error_bodies_map_to_typed_errors(status: int, body: dict[str, Any]) -> None:
    path = "/api/v3/work_packages/42"
    fake = FakeOpenProject().route(path, httpx.Response(status, json=body))
    async with make_client(fake, retry=NO_RETRY) as client:
        with pytest.raises(OpenProjectError) as caught:
            await client.work_package(42)
    error = caught.value
    expected = EXPECTED_TYPE.get(status, OpenProjectError)
    assert type(error) is expected
    assert error.status == status
    assert error.error_identifier == body["errorIdentifier"]
    assert body["message"] in str(error)
    assert "GET /api/v3/work_packages/42" in str(error)


def test_error_response_schema_example_maps_to_a_typed_error() -> None:
    # error_response.yml documents each property's example; assemble the body from them.
    schema = load_schema("error_response.yml")
    props = schema["properties"]
    body = {
        "_type": props["_type"]["enum"][0],
        "errorIdentifier": props["errorIdentifier"]["example"],
        "message": props["message"]["example"],
        "_embedded": {"details": {"attribute": props["_embedded"]["properties"]["details"]
                                  ["properties"]["attribute"]["example"]}},
    }  # fmt: skip
    error = error_from_response(422, body, method="GET", path="/api/v3/projects")
    assert type(error) is OpenProjectError
    assert error.error_identifier == "urn:openproject-org:api:v3:errors:PropertyConstraintViolation"
    assert "Project can't be blank." in str(error)


def test_invalid_query_example() -> None:
    document = load_example("invalid_query.yml")
    body = document["content"]["application/hal+json"]["example"]
    error = error_from_response(400, body, method="GET", path="/api/v3/work_packages")
    assert isinstance(error, InvalidQueryError)
    assert error.error_identifier == "urn:openproject-org:api:v3:errors:InvalidQuery"
    assert "Filters Invalid filter does not exist." in str(error)


async def test_unknown_filter_raises_invalid_query_and_names_the_request() -> None:
    body = error_body("InvalidQuery", "Filters Invalid filter does not exist.")
    fake = FakeOpenProject().route("/api/v3/work_packages", httpx.Response(400, json=body))
    async with make_client(fake) as client:
        with pytest.raises(InvalidQueryError) as caught:
            await client.work_packages().collect()
    assert caught.value.status == 400
    assert "GET /api/v3/work_packages" in str(caught.value)
    assert "filters" not in str(caught.value)  # the query string is not echoed


def test_multiple_errors_use_the_first_identifier_and_all_messages() -> None:
    body = {
        "_type": "Error",
        "errorIdentifier": "urn:openproject-org:api:v3:errors:MultipleErrors",
        "message": "Multiple field constraints have been violated.",
        "_embedded": {
            "errors": [
                error_body("PropertyConstraintViolation", "Subject can't be blank."),
                error_body("PropertyConstraintViolation", "Type is invalid."),
            ]
        },
    }
    error = error_from_response(422, body, method="GET", path="/api/v3/x")
    assert error.error_identifier is not None
    assert error.error_identifier.endswith(":PropertyConstraintViolation")
    assert "Subject can't be blank." in str(error)
    assert "Type is invalid." in str(error)


def test_non_json_error_body_is_mapped_by_status() -> None:
    error = error_from_response(503, None, method="GET", path="/api/v3/x")
    assert isinstance(error, ServerError)
    assert error.error_identifier is None
    assert str(error) == "OpenProject answered 503 to GET /api/v3/x"


def test_forbidden_with_unauthenticated_body_is_permission_denied() -> None:
    # A token with the wrong scope: 403 carrying an Unauthenticated identifier.
    body = error_body("Unauthenticated", "insufficient scope")
    error = error_from_response(403, body, method="GET", path="/api/v3/x")
    assert isinstance(error, PermissionDeniedError)


async def test_non_json_success_body_is_a_clear_error() -> None:
    page = httpx.Response(200, text="<html>login</html>", headers={"Content-Type": "text/html"})
    fake = FakeOpenProject().route("/api/v3/statuses", page)
    async with make_client(fake) as client:
        with pytest.raises(OpenProjectError) as caught:
            await client.statuses()
    assert "non-JSON" in str(caught.value)
    assert "text/html" in str(caught.value)


async def test_malformed_resource_is_a_clear_error_naming_the_record() -> None:
    fake = FakeOpenProject().route(
        "/api/v3/work_packages/5", {"_type": "WorkPackage", "id": "five", "subject": "x"}
    )
    async with make_client(fake) as client:
        with pytest.raises(OpenProjectError) as caught:
            await client.work_package(5)
    assert "malformed WorkPackage" in str(caught.value)
    assert "'five'" in str(caught.value)


async def test_redirects_are_not_followed_and_name_the_target() -> None:
    moved = httpx.Response(301, headers={"Location": "https://op.test/login?back=%2Fapi"})
    fake = FakeOpenProject().route("/api/v3/users/me", moved)
    async with make_client(fake) as client:
        with pytest.raises(OpenProjectError) as caught:
            await client.me()
    assert caught.value.status == 301
    assert "redirected (301) to https://op.test/login" in str(caught.value)
    assert len(fake.requests) == 1
