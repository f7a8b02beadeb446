"""The /_sandbox control endpoints: request stats, injected faults, live corpus mutation."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime

import httpx
import pytest
from tests.support.corpora import varied_corpus
from tests.support.sandbox import CLOSED_STATUS, MEMBER_KEY, SandboxHandle, running_sandbox

ERROR_PREFIX = "urn:openproject-org:api:v3:errors:"


@pytest.fixture(scope="module")
def steady() -> Iterator[SandboxHandle]:
    """One server for the tests that leave no trace (faults are used up or cleared)."""
    with running_sandbox(varied_corpus()) as handle:
        yield handle


@pytest.fixture
def sandbox(steady: SandboxHandle) -> Iterator[SandboxHandle]:
    steady.clear_faults()
    steady.reset_stats()
    yield steady
    steady.clear_faults()


@pytest.fixture
def fresh() -> Iterator[SandboxHandle]:
    """A server of its own, for tests that change the corpus."""
    with running_sandbox(varied_corpus()) as handle:
        yield handle


def test_stats_count_api_requests_by_literal_path(sandbox: SandboxHandle) -> None:
    sandbox.reset_stats()
    sandbox.get("/api/v3/work_packages")
    sandbox.get("/api/v3/work_packages", params={"offset": "2"})
    sandbox.get("/api/v3/work_packages/101/activities")
    sandbox.get("/api/v3/nothing-here")
    stats = sandbox.stats()
    assert stats == {
        "requests": 4,
        "by_path": {
            "/api/v3/work_packages": 2,
            "/api/v3/work_packages/101/activities": 1,
            "/api/v3/nothing-here": 1,
        },
    }
    sandbox.reset_stats()
    assert sandbox.stats() == {"requests": 0, "by_path": {}}


def test_fault_500_fails_the_next_matching_requests_then_stops(sandbox: SandboxHandle) -> None:
    sandbox.fault("/api/v3/work_packages", status=500, count=2)
    assert sandbox.get("/api/v3/projects").status_code == 200  # other prefix: untouched
    for _ in range(2):
        failed = sandbox.get("/api/v3/work_packages/101")
        assert failed.status_code == 500
        assert failed.json()["errorIdentifier"] == ERROR_PREFIX + "InternalServerError"
    assert sandbox.get("/api/v3/work_packages/101").status_code == 200
    assert sandbox.stats()["by_path"]["/api/v3/work_packages/101"] == 3


def test_fault_429_sets_retry_after_only_when_given(sandbox: SandboxHandle) -> None:
    sandbox.fault("/api/v3/meetings", status=429, retry_after=7)
    limited = sandbox.get("/api/v3/meetings")
    assert limited.status_code == 429
    assert limited.headers["Retry-After"] == "7"
    assert limited.json()["errorIdentifier"] == ERROR_PREFIX + "TooManyRequests"
    sandbox.fault("/api/v3/meetings", status=429)
    bare = sandbox.get("/api/v3/meetings")
    assert bare.status_code == 429 and "Retry-After" not in bare.headers


def test_hang_fault_outlasts_a_client_timeout_then_clears(sandbox: SandboxHandle) -> None:
    sandbox.fault("/api/v3/users/me", hang=5)
    with sandbox.client(timeout=0.5) as client, pytest.raises(httpx.ReadTimeout):
        client.get("/api/v3/users/me")
    assert sandbox.get("/api/v3/users/me").status_code == 200


def test_clear_faults(sandbox: SandboxHandle) -> None:
    sandbox.fault("/api/v3", status=503, count=10)
    assert sandbox.get("/api/v3/users/me").status_code == 503
    sandbox.clear_faults()
    assert sandbox.get("/api/v3/users/me").status_code == 200


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"status": 500}, "path_prefix"),
        ({"path_prefix": "/api/v3"}, "status, a hang"),
        ({"path_prefix": "/api/v3", "status": 200}, "between 400 and 599"),
        ({"path_prefix": "/api/v3", "status": 500, "count": 0}, "count"),
        ({"path_prefix": "/api/v3", "status": 429, "retryAfter": 3}, "unknown fault key"),
        ({"path_prefix": "/api/v3", "hang": -1}, "hang"),
    ],
)
def test_invalid_fault_is_refused_with_a_message(
    sandbox: SandboxHandle, body: dict[str, object], message: str
) -> None:
    response = httpx.post(f"{sandbox.base_url}/_sandbox/faults", json=body)
    assert response.status_code == 400
    assert message in response.json()["error"]
    assert sandbox.get("/api/v3/users/me").status_code == 200  # nothing was installed


def test_malformed_control_body_is_refused(sandbox: SandboxHandle) -> None:
    response = httpx.post(f"{sandbox.base_url}/_sandbox/mutate", content=b"{not json")
    assert response.status_code == 400 and "JSON" in response.json()["error"]


def test_upsert_adds_a_work_package_stamped_now(fresh: SandboxHandle) -> None:
    before = datetime.now(UTC).replace(microsecond=0)
    record = {
        "id": 900,
        "project": 1,
        "subject": "Fresh task",
        "type": 1,
        "status": 1,
        "author": 2,
        "activities": [{"id": 9900, "user": 2, "comment": "First!"}],
    }
    stored = fresh.mutate("upsert", "work_packages", record)["record"]
    stamped = datetime.fromisoformat(stored["updatedAt"])
    assert stamped >= before
    fetched = fresh.get("/api/v3/work_packages/900").json()
    assert fetched["subject"] == "Fresh task"
    assert datetime.fromisoformat(fetched["updatedAt"]) >= before
    comments = fresh.get("/api/v3/work_packages/900/activities").json()
    assert [e["comment"]["raw"] for e in comments["_embedded"]["elements"]] == ["First!"]
    comment_time = comments["_embedded"]["elements"][0]["createdAt"]
    assert datetime.fromisoformat(comment_time) >= before  # new sub-records are stamped too
    since = json.dumps([{"updatedAt": {"operator": "<>d", "values": [before.isoformat(), ""]}}])
    changed = fresh.get("/api/v3/work_packages", params={"filters": since}).json()
    assert [e["id"] for e in changed["_embedded"]["elements"]] == [900]


def test_upsert_merges_into_an_existing_record(fresh: SandboxHandle) -> None:
    fresh.get("/api/v3/work_packages")  # warm the query cache; the mutation must bust it
    stored = fresh.mutate(
        "upsert",
        "work_packages",
        {"id": 101, "status": CLOSED_STATUS, "updatedAt": "2026-05-01T00:00:00Z"},
    )["record"]
    assert stored["subject"] == "Renew TLS certificate"
    assert stored["lockVersion"] == 1
    body = fresh.get("/api/v3/work_packages/101").json()
    assert body["updatedAt"] == "2026-05-01T00:00:00.000Z"
    assert body["_links"]["status"]["title"] == "Closed"
    open_ids = [e["id"] for e in fresh.get("/api/v3/work_packages").json()["_embedded"]["elements"]]
    assert 101 not in open_ids
    activities = fresh.get("/api/v3/work_packages/101/activities").json()
    assert activities["total"] == 3  # activities absent from the upsert were kept


def test_upsert_of_wiki_page_meeting_and_project(fresh: SandboxHandle) -> None:
    fresh.mutate("upsert", "wiki_pages", {"id": 61, "project": 1, "title": "New page"})
    assert fresh.get("/api/v3/wiki_pages/61").json()["title"] == "New page"
    fresh.mutate("upsert", "meetings", {"id": 12, "title": "Renamed sync"})
    assert fresh.get("/api/v3/meetings/12").json()["title"] == "Renamed sync"
    fresh.mutate("upsert", "projects", {"id": 2, "members": [1, 2, 3]})
    assert fresh.get("/api/v3/wiki_pages/8", "key-carol").status_code == 200


def test_delete_removes_records_and_a_project_takes_its_content(fresh: SandboxHandle) -> None:
    fresh.mutate("delete", "work_packages", {"id": 101})
    assert fresh.get("/api/v3/work_packages/101").status_code == 404
    fresh.mutate("delete", "projects", {"id": 2})
    for path in ("/api/v3/work_packages/103", "/api/v3/wiki_pages/8", "/api/v3/meetings/13"):
        assert fresh.get(path).status_code == 404, path
    response = httpx.post(
        f"{fresh.base_url}/_sandbox/mutate",
        json={"op": "delete", "kind": "meetings", "record": {"id": 4242}},
    )
    assert response.status_code == 404 and "4242" in response.json()["error"]


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"op": "replace", "kind": "work_packages", "record": {"id": 1}}, "op must be"),
        ({"op": "upsert", "kind": "users", "record": {"id": 1}}, "kind must be"),
        ({"op": "upsert", "kind": "work_packages", "record": []}, "record must be"),
        ({"op": "upsert", "kind": "work_packages", "record": {"subject": "x"}}, "id"),
        (
            {"op": "upsert", "kind": "work_packages", "record": {"id": 101, "project": 99}},
            "work_packages id 101: project 99 does not exist",
        ),
        (
            {"op": "upsert", "kind": "work_packages", "record": {"id": 555}},
            "work_packages id 555: field project: Field required",
        ),
        (
            {"op": "upsert", "kind": "meetings", "record": {"id": 12, "state": "finished"}},
            "state",
        ),
        (
            {"op": "upsert", "kind": "projects", "record": {"id": 1, "members": [77]}},
            "member user 77 does not exist",
        ),
    ],
)
def test_invalid_mutation_is_refused_and_changes_nothing(
    sandbox: SandboxHandle, body: dict[str, object], message: str
) -> None:
    before = sandbox.get("/api/v3/work_packages/101").json()
    response = httpx.post(f"{sandbox.base_url}/_sandbox/mutate", json=body)
    assert response.status_code == 400
    assert message in response.json()["error"]
    assert sandbox.get("/api/v3/work_packages/101").json() == before
    assert sandbox.get("/api/v3/projects/1", MEMBER_KEY).status_code == 200
