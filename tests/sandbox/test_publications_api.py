"""News, documents, versions, posts and project texts over real HTTP: schemas, paging, rights."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from tests.sandbox.publications_corpus import PRIVATE, publications_corpus
from tests.support.openapi import problems, validator
from tests.support.sandbox import MEMBER_KEY, OUTSIDER_KEY, SandboxHandle, running_sandbox


@pytest.fixture(scope="module")
def sandbox() -> Iterator[SandboxHandle]:
    with running_sandbox(publications_corpus()) as handle:
        yield handle


def _conforms(schema: str, body: Any) -> None:
    found = problems(validator(schema), body)
    assert not found, f"{schema}:\n" + "\n".join(found)


def _conforms_with_formattable_description(schema: str, body: Any) -> None:
    """News and document schemas type ``description`` as a string, but their own examples
    (and OpenProject) render a Formattable: check it against formattable.yml instead."""
    _conforms(schema, {**body, "description": "checked separately"})
    _conforms("formattable.yml", body["description"])


def _ids(body: dict[str, Any]) -> list[int]:
    return [element["id"] for element in body["_embedded"]["elements"]]


def test_news_collection_and_item_match_the_schema(sandbox: SandboxHandle) -> None:
    listed = sandbox.get("/api/v3/news").json()
    _conforms("offset_paginated_collection_model.yml", listed)
    for element in listed["_embedded"]["elements"]:
        _conforms_with_formattable_description("news_model.yml", element)
        assert "updatedAt" not in element  # the News resource has no updatedAt
    single = sandbox.get("/api/v3/news/1").json()
    _conforms_with_formattable_description("news_model.yml", single)
    assert single["summary"] == "Summary of maintenance on saturday."
    assert single["description"]["raw"] == "All about *Maintenance on Saturday*."
    assert single["_links"]["author"] == {"href": "/api/v3/users/1", "title": "Ada Admin"}
    assert single["_embedded"]["project"]["id"] == 1
    _conforms("user_model.yml", single["_embedded"]["author"])


def test_news_pages_sorts_and_filters_by_project(sandbox: SandboxHandle) -> None:
    first = sandbox.get("/api/v3/news", params={"pageSize": "3"}).json()
    assert (first["total"], first["count"], _ids(first)) == (4, 3, [1, 2, 3])
    assert "nextByOffset" in first["_links"]
    second = sandbox.get("/api/v3/news", params={"pageSize": "3", "offset": "2"}).json()
    assert _ids(second) == [4] and "nextByOffset" not in second["_links"]
    by_date = sandbox.get("/api/v3/news", params={"sortBy": '[["created_at","desc"]]'}).json()
    assert _ids(by_date) == [3, 1, 2, 4]
    only_ops = json.dumps([{"project_id": {"operator": "=", "values": ["1"]}}])
    assert _ids(sandbox.get("/api/v3/news", params={"filters": only_ops}).json()) == [1, 2]
    bad = sandbox.get("/api/v3/news", params={"filters": '[{"title":{"operator":"="}}]'})
    assert bad.status_code == 400
    assert bad.json()["errorIdentifier"].endswith(":InvalidQuery")
    unsorted = sandbox.get("/api/v3/news", params={"sortBy": '[["title","asc"]]'})
    assert unsorted.status_code == 400


def test_documents_collection_and_document(sandbox: SandboxHandle) -> None:
    listed = sandbox.get("/api/v3/documents", params={"pageSize": "2"}).json()
    _conforms("offset_paginated_collection_model.yml", listed)
    assert (listed["total"], _ids(listed)) == (3, [21, 22])
    for element in listed["_embedded"]["elements"]:
        _conforms_with_formattable_description("document_model.yml", element)
    newest = sandbox.get("/api/v3/documents", params={"sortBy": '[["created_at","desc"]]'})
    assert _ids(newest.json()) == [23, 21, 22]
    single = sandbox.get("/api/v3/documents/21").json()
    _conforms_with_formattable_description("document_model.yml", single)
    assert single["_links"]["attachments"]["href"] == "/api/v3/documents/21/attachments"
    assert _ids(single["_embedded"]["attachments"]) == [56]


def test_versions_are_unpaginated_and_match_the_schema(sandbox: SandboxHandle) -> None:
    listed = sandbox.get("/api/v3/versions").json()
    _conforms("version_collection_model.yml", listed)
    assert _ids(listed) == [31, 32, 33] and "pageSize" not in listed
    sprint = sandbox.get("/api/v3/versions/31").json()
    _conforms("version_read_model.yml", sprint)
    assert (sprint["startDate"], sprint["endDate"], sprint["status"]) == (
        "2026-03-02",
        "2026-03-13",
        "open",
    )
    assert sprint["description"] == {"format": "plain", "raw": "Two weeks.", "html": "Two weeks."}
    assert sprint["_links"]["definingProject"]["href"] == "/api/v3/projects/1"
    in_ops = sandbox.get("/api/v3/projects/ops/versions").json()
    assert _ids(in_ops) == [31, 33]  # its own and the system-wide shared one
    shared = json.dumps([{"sharing": {"operator": "=", "values": ["system"]}}])
    assert _ids(sandbox.get("/api/v3/versions", params={"filters": shared}).json()) == [33]


def test_post_matches_the_schema(sandbox: SandboxHandle) -> None:
    post = sandbox.get("/api/v3/posts/41").json()
    _conforms("post_model.yml", post)
    assert post["subject"] == "Which editor do you use?"
    assert post["_links"]["attachments"]["href"] == "/api/v3/posts/41/attachments"
    assert sandbox.get("/api/v3/posts").status_code == 404  # no list endpoint


def test_projects_carry_description_status_explanation_and_timestamps(
    sandbox: SandboxHandle,
) -> None:
    project = sandbox.get("/api/v3/projects/1").json()
    _conforms("project_model.yml", project)
    assert project["description"]["raw"] == "Operations of the **platform**."
    assert project["statusExplanation"]["raw"] == "On track after the migration."
    assert {"createdAt", "updatedAt"} <= project.keys()
    listed = sandbox.get("/api/v3/projects").json()
    _conforms("project_collection_model.yml", listed)
    empty = listed["_embedded"]["elements"][1]["statusExplanation"]
    assert empty == {"format": "markdown", "raw": "", "html": ""}


@pytest.mark.parametrize(
    "path",
    [
        "/api/v3/news/3",
        "/api/v3/documents/22",
        "/api/v3/versions/32",
        "/api/v3/posts/42",
        "/api/v3/attachments/53",
        "/api/v3/attachments/53/content",
        "/api/v3/attachments/58",
        "/api/v3/work_packages/201/attachments",
        "/api/v3/wiki_pages/8/attachments",
        "/api/v3/posts/42/attachments",
        "/api/v3/documents/22/attachments",
        "/api/v3/projects/hr/versions",
    ],
)
def test_a_non_member_gets_404_for_private_content(sandbox: SandboxHandle, path: str) -> None:
    assert sandbox.get(path, MEMBER_KEY).status_code == 200
    refused = sandbox.get(path, OUTSIDER_KEY)
    assert refused.status_code == 404
    assert refused.json()["errorIdentifier"].endswith(":NotFound")


def test_lists_leave_out_private_content_for_a_non_member(sandbox: SandboxHandle) -> None:
    for key, news, documents, versions in (
        (MEMBER_KEY, [1, 2, 3, 4], [21, 22, 23], [31, 32, 33]),
        (OUTSIDER_KEY, [1, 2, 4], [21, 23], [31, 33]),
    ):
        assert _ids(sandbox.get("/api/v3/news", key).json()) == news
        assert _ids(sandbox.get("/api/v3/documents", key).json()) == documents
        assert _ids(sandbox.get("/api/v3/versions", key).json()) == versions
    counted = sandbox.get("/api/v3/news", OUTSIDER_KEY, params={"pageSize": "1"}).json()
    assert counted["total"] == 3
    private = json.dumps([{"project_id": {"operator": "=", "values": [str(PRIVATE)]}}])
    assert _ids(sandbox.get("/api/v3/news", OUTSIDER_KEY, {"filters": private}).json()) == []
