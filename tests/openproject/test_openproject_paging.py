"""Paging over HAL collections: page size read back, last page, de-duplication, query JSON."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import httpx
import pytest
from fake_openproject import FakeOpenProject, collection, make_client, paginate

from opindex.errors import InvalidArgumentError
from opindex.openproject import Filter, updated_since
from opindex.openproject.query import filters_json, select_param, sort_by_json

WPS = "/api/v3/work_packages"


def work_package(wp_id: int, subject: str | None = None) -> dict[str, Any]:
    return {
        "_type": "WorkPackage",
        "id": wp_id,
        "subject": subject or f"Work package {wp_id}",
        "_links": {"self": {"href": f"/api/v3/work_packages/{wp_id}"}},
    }


CORPUS = [work_package(i) for i in range(1, 12)]  # 11 records


def serve(max_page_size: int, records: list[dict[str, Any]] = CORPUS) -> Any:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json=paginate(records, request, max_page_size=max_page_size))

    return handler


async def test_pages_follow_the_clamped_page_size_to_the_last_page() -> None:
    fake = FakeOpenProject().route(WPS, serve(max_page_size=4))
    async with make_client(fake) as client:
        pages = [page async for page in client.work_packages(page_size=1000)]
    assert [page.number for page in pages] == [1, 2, 3]
    assert [page.page_size for page in pages] == [4, 4, 4]
    assert [len(page.elements) for page in pages] == [4, 4, 3]
    assert [page.total for page in pages] == [11, 11, 11]
    sent = [(r.url.params["offset"], r.url.params["pageSize"]) for r in fake.requests_to(WPS)]
    # The first request asks for 1000; later ones use the size the server reported.
    assert sent == [("1", "1000"), ("2", "4"), ("3", "4")]


async def test_collect_returns_every_record_once() -> None:
    fake = FakeOpenProject().route(WPS, serve(max_page_size=3))
    async with make_client(fake) as client:
        records = await client.work_packages(page_size=3).collect()
    assert [wp.id for wp in records] == list(range(1, 12))
    assert len(fake.requests_to(WPS)) == 4


async def test_exact_multiple_of_page_size_needs_no_extra_request() -> None:
    records = CORPUS[:8]
    fake = FakeOpenProject().route(WPS, serve(max_page_size=4, records=records))
    async with make_client(fake) as client:
        items = await client.work_packages(page_size=4).collect()
    assert len(items) == 8
    assert len(fake.requests_to(WPS)) == 2


async def test_records_shifting_between_pages_are_deduplicated() -> None:
    # A record is created before page 2 is read: every later record moves one slot down,
    # so page 2 starts with the last record of page 1 again.
    def shifting(request: httpx.Request) -> httpx.Response:
        offset = int(request.url.params["offset"])
        rows = CORPUS[:5] if offset == 1 else [work_package(0), *CORPUS[:5]]
        return httpx.Response(200, json=paginate(rows, request, max_page_size=3))

    fake = FakeOpenProject().route(WPS, shifting)
    async with make_client(fake) as client:
        pages = [page async for page in client.work_packages(page_size=3)]
    ids = [wp.id for page in pages for wp in page.elements]
    assert ids == [1, 2, 3, 4, 5]
    assert pages[1].duplicates == 1
    assert len(ids) == len(set(ids))


async def test_a_server_ignoring_offset_does_not_loop_forever() -> None:
    def stuck(request: httpx.Request) -> httpx.Response:
        body = collection(CORPUS[:3], total=11, page_size=3, offset=1, has_next=True)
        return httpx.Response(200, json=body)

    fake = FakeOpenProject().route(WPS, stuck)
    async with make_client(fake) as client:
        items = await client.work_packages(page_size=3).collect()
    assert [wp.id for wp in items] == [1, 2, 3]
    assert len(fake.requests_to(WPS)) == 2


async def test_empty_collection_is_one_request() -> None:
    fake = FakeOpenProject().route(WPS, serve(max_page_size=10, records=[]))
    async with make_client(fake) as client:
        pages = [page async for page in client.work_packages()]
    assert len(pages) == 1
    assert pages[0].elements == ()
    assert pages[0].total == 0


async def test_missing_next_link_ends_the_walk_even_if_total_is_larger() -> None:
    # `nextByOffset` is absent on the last page; trust it over a stale total.
    body = collection(CORPUS[:3], total=50, page_size=3, offset=1, has_next=False)
    fake = FakeOpenProject().route(WPS, body)
    async with make_client(fake) as client:
        items = await client.work_packages(page_size=3).collect()
    assert len(items) == 3
    assert len(fake.requests_to(WPS)) == 1


async def test_unpaginated_activities_are_one_request() -> None:
    path = "/api/v3/work_packages/5/activities"
    elements = [
        {"_type": "Activity::Comment", "id": 11, "comment": {"format": "markdown", "raw": "hi"}},
        {"_type": "Activity", "id": 12, "comment": {"format": "markdown", "raw": ""}},
    ]
    fake = FakeOpenProject().route(path, collection(elements))
    async with make_client(fake) as client:
        activities = await client.work_package_activities(5)
        assert client.requests_by_path == {
            "/api/v3/users/me": 1,
            "/api/v3/work_packages/{id}/activities": 1,
        }
    assert [a.id for a in activities] == [11, 12]
    assert [a.is_comment for a in activities] == [True, False]
    (request,) = fake.requests_to(path)
    assert "offset" not in request.url.params
    assert "pageSize" not in request.url.params


async def test_select_sweep_walks_by_total_without_links() -> None:
    records = [{"id": i, "updatedAt": "2026-03-01T00:00:00Z"} for i in range(1, 8)]

    def trimmed(request: httpx.Request) -> httpx.Response:
        page = paginate(records, request, max_page_size=3)
        # `select` trims the answer to the selected properties only.
        return httpx.Response(200, json={"total": page["total"], "_embedded": page["_embedded"]})

    fake = FakeOpenProject().route(WPS, trimmed)
    async with make_client(fake) as client:
        items = await client.work_package_ids(page_size=3).collect()
    assert [wp.id for wp in items] == list(range(1, 8))
    assert items[0].updated_at == datetime(2026, 3, 1, tzinfo=UTC)
    assert items[0].subject == ""
    requests = fake.requests_to(WPS)
    assert len(requests) == 3
    assert requests[0].url.params["select"] == "total,elements/id,elements/updatedAt"


async def test_work_packages_always_send_a_filter_list_and_sort() -> None:
    fake = FakeOpenProject().route(WPS, serve(max_page_size=100))
    async with make_client(fake) as client:
        await client.work_packages().collect()
        since = datetime(2026, 3, 1, 12, 0, tzinfo=timezone(timedelta(hours=2)))
        await client.work_packages(
            [updated_since(since), Filter.of("project", "=", [12])],
            sort_by=[("updatedAt", "asc"), ("id", "asc")],
        ).collect()
    first, second = fake.requests_to(WPS)
    assert json.loads(first.url.params["filters"]) == []
    assert json.loads(first.url.params["sortBy"]) == [["id", "asc"]]
    assert json.loads(second.url.params["filters"]) == [
        {"updatedAt": {"operator": "<>d", "values": ["2026-03-01T10:00:00Z", ""]}},
        {"project": {"operator": "=", "values": ["12"]}},
    ]
    assert json.loads(second.url.params["sortBy"]) == [["updatedAt", "asc"], ["id", "asc"]]


def test_filter_values_with_quotes_survive_as_json() -> None:
    text = 'say "hi", [x]'
    encoded = filters_json([Filter.of("subject", "~", [text]), Filter.of("status", "o")])
    assert json.loads(encoded) == [
        {"subject": {"operator": "~", "values": [text]}},
        {"status": {"operator": "o", "values": None}},
    ]


@pytest.mark.parametrize(
    "build",
    [
        lambda: Filter.of("", "="),
        lambda: Filter.of("status", "LIKE", ["x"]),
        lambda: Filter.of("id", "=", [True]),
        lambda: Filter.of("id", "=", [1.5]),
        lambda: sort_by_json([("id", "up")]),  # type: ignore[list-item]
        lambda: select_param(["elements/id,elements/subject"]),
        lambda: updated_since(datetime(2026, 1, 1)),
    ],
)
def test_bad_query_input_is_refused_clearly(build: Any) -> None:
    with pytest.raises(InvalidArgumentError):
        build()


async def test_invalid_page_size_is_refused_before_any_request() -> None:
    fake = FakeOpenProject()
    async with make_client(fake) as client:
        with pytest.raises(InvalidArgumentError):
            client.work_packages(page_size=0)
    assert fake.requests == []


async def test_projects_and_meetings_are_paged_too() -> None:
    projects = [{"_type": "Project", "id": i, "name": f"P{i}"} for i in range(1, 6)]
    meetings = [{"_type": "Meeting", "id": i, "title": f"M{i}"} for i in range(1, 4)]

    def project_pages(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json=paginate(projects, request, max_page_size=2))

    def meeting_pages(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json=paginate(meetings, request, max_page_size=2))

    fake = (
        FakeOpenProject()
        .route("/api/v3/projects", project_pages)
        .route("/api/v3/meetings", meeting_pages)
    )
    async with make_client(fake) as client:
        assert [p.name for p in await client.projects().collect()] == [f"P{i}" for i in range(1, 6)]
        assert [m.id for m in await client.meetings().collect()] == [1, 2, 3]
    assert len(fake.requests_to("/api/v3/projects")) == 3
    meeting_request = fake.requests_to("/api/v3/meetings")[0]
    assert json.loads(meeting_request.url.params["filters"]) == []
