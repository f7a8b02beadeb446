"""The client against the real ``opindex sandbox`` server over HTTP."""

from __future__ import annotations

import math
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
from fake_openproject import RecordingSleep
from tests.support.sandbox import (
    ADMIN_KEY,
    CLOSED_STATUS,
    MEMBER_KEY,
    CorpusBuilder,
    SandboxHandle,
    running_sandbox,
)

from opindex.errors import (
    AuthenticationError,
    NotFoundError,
    ServerError,
    UpstreamUnavailableError,
)
from opindex.openproject import (
    Filter,
    OpenProjectClient,
    RetryPolicy,
    closed_status_ids,
    detect_capabilities,
    resolve_status_closed,
    updated_since,
)
from opindex.record_builders import meeting_record, wiki_page_record, work_package_record
from opindex.search.document import FieldValue

PAGE_SIZE_MAX = 4
WP_IDS = list(range(101, 112))  # 11 work packages in project 1
CLOSED_IDS = {103, 107, 111}


def corpus() -> dict[str, Any]:
    builder = CorpusBuilder()
    for wp_id in WP_IDS:
        builder.add_work_package(
            wp_id,
            status=CLOSED_STATUS if wp_id in CLOSED_IDS else 1,
            updatedAt=f"2026-03-{wp_id - 100:02d}T09:00:00Z",
            subject=f"Renew TLS certificate {wp_id}" if wp_id == 105 else f"Task {wp_id}",
        )
    builder.add_work_package(
        201,
        project=2,
        subject="Hiring plan for backend roles",
        activities=[
            {"id": 9001, "user": 2, "comment": "Two roles, **senior**."},
            {"id": 9002, "user": 1, "comment": "Admins only", "internal": True},
            {"id": 9003, "user": 1, "comment": ""},
        ],
    )
    builder.add_wiki_page(7, title="Runbook", text="Restart the queue", slug="runbook")
    builder.add_wiki_page(9, title="Onboarding", text="Laptop, accounts")
    builder.add_meeting(
        12,
        title="Weekly sync",
        agendaItems=[
            {
                "id": 120,
                "title": "Hiring plan",
                "notes": "Two backend roles",
                "position": 1,
                "outcomes": [{"id": 1200, "kind": "decision", "notes": "Open both in April"}],
            },
            {"id": 121, "title": "Budget", "notes": "", "position": 2},
        ],
    )
    return builder.build()


@pytest.fixture(scope="module")
def sandbox() -> Iterator[SandboxHandle]:
    with running_sandbox(corpus(), page_size_max=PAGE_SIZE_MAX) as handle:
        yield handle


def connect(handle: SandboxHandle, key: str = ADMIN_KEY, **options: Any) -> OpenProjectClient:
    return OpenProjectClient(handle.base_url, key, sleep=RecordingSleep(), **options)


async def test_identity_check_against_the_sandbox(sandbox: SandboxHandle) -> None:
    async with connect(sandbox) as client:
        me = await client.me()
    assert (me.id, me.login, me.admin) == (1, "ada", True)
    async with connect(sandbox, "not-a-key") as client:
        with pytest.raises(AuthenticationError) as caught:
            await client.work_packages().collect()
    assert caught.value.status == 401
    async with connect(sandbox, MEMBER_KEY, expected_login="ada") as client:
        with pytest.raises(AuthenticationError):
            await client.statuses()


async def test_paging_reads_every_page_including_closed_work_packages(
    sandbox: SandboxHandle,
) -> None:
    sandbox.reset_stats()
    async with connect(sandbox) as client:
        pages = [page async for page in client.work_packages(page_size=1000)]
        requests = client.request_count
    ids = [wp.id for page in pages for wp in page.elements]
    expected = [*WP_IDS, 201]
    assert ids == expected
    assert {page.page_size for page in pages} == {PAGE_SIZE_MAX}
    assert len(pages) == math.ceil(len(expected) / PAGE_SIZE_MAX)
    assert set(ids) >= CLOSED_IDS
    stats = sandbox.stats()
    assert stats["by_path"]["/api/v3/work_packages"] == len(pages)
    assert stats["requests"] == requests  # users/me + one request per page


async def test_filters_and_sorting(sandbox: SandboxHandle) -> None:
    async with connect(sandbox) as client:
        closed = await client.work_packages([Filter.of("status", "c")]).collect()
        changed = await client.work_packages(
            [updated_since(datetime(2026, 3, 9, tzinfo=UTC)), Filter.of("project", "=", [1])],
            sort_by=[("updatedAt", "desc"), ("id", "asc")],
        ).collect()
        by_subject = await client.work_packages([Filter.of("subject", "~", ["tls"])]).collect()
    assert {wp.id for wp in closed} == CLOSED_IDS
    assert [wp.id for wp in changed] == [111, 110, 109]
    assert [wp.subject for wp in by_subject] == ["Renew TLS certificate 105"]


async def test_id_sweep_with_select(sandbox: SandboxHandle) -> None:
    async with connect(sandbox) as client:
        swept = await client.work_package_ids(page_size=PAGE_SIZE_MAX).collect()
    assert [wp.id for wp in swept] == [*WP_IDS, 201]
    assert all(wp.updated_at is not None and wp.subject == "" for wp in swept)


async def test_work_package_record_with_status_table_and_comments(sandbox: SandboxHandle) -> None:
    async with connect(sandbox) as client:
        table = closed_status_ids(await client.statuses())
        wp = await client.work_package(201)
        activities = await client.work_package_activities(201)
        closed_wp = await client.work_package(103)
    assert table == {1: False, 2: False, 3: True}
    assert resolve_status_closed(closed_wp, table) is True
    record = work_package_record(wp, activities, status_closed=resolve_status_closed(wp, table))
    assert record.attributes["is_closed"] is False
    assert record.project_name == "People & Hiring"
    assert record.document.fields["comments"] == (
        FieldValue("Two roles, **senior**.", ref=9001),
        FieldValue("Admins only", ref=9002),
    )


async def test_internal_comments_are_not_served_to_members(sandbox: SandboxHandle) -> None:
    async with connect(sandbox, MEMBER_KEY) as client:
        activities = await client.work_package_activities(201)
    assert [a.id for a in activities if a.comment] == [9001]


async def test_meeting_with_agenda_and_outcomes(sandbox: SandboxHandle) -> None:
    async with connect(sandbox) as client:
        (listed,) = await client.meetings().collect()
        meeting = await client.meeting(12)
        items = await client.meeting_agenda_items(12)
    assert listed.id == meeting.id == 12
    record = meeting_record(meeting, items)
    fields = record.document.fields
    assert fields["agenda_title"] == (
        FieldValue("Hiring plan", ref=120),
        FieldValue("Budget", ref=121),
    )
    assert fields["outcome_notes"] == (FieldValue("Open both in April", ref=120),)
    assert fields["participants"] == (FieldValue("Ada Admin"), FieldValue("Bob Müller"))
    assert fields["author"] == (FieldValue("Bob Müller"),)


async def test_wiki_pages_and_gaps(sandbox: SandboxHandle) -> None:
    async with connect(sandbox) as client:
        page = await client.wiki_page(7)
        with pytest.raises(NotFoundError):
            await client.wiki_page(8)
        with pytest.raises(NotFoundError):
            await client.wiki_pages().collect()
    record = wiki_page_record(page)
    assert record.document.fields["text"] == (FieldValue("Restart the queue"),)
    assert record.attributes["slug"] == "runbook"


async def test_retries_against_injected_faults(sandbox: SandboxHandle) -> None:
    try:
        sandbox.fault("/api/v3/statuses", status=503, count=2)
        sleep = RecordingSleep()
        policy = RetryPolicy(max_attempts=3, base_delay=0.25, jitter=0)
        async with OpenProjectClient(
            sandbox.base_url, ADMIN_KEY, retry=policy, sleep=sleep
        ) as client:
            assert len(await client.statuses()) == 3
        assert sleep.delays == [0.25, 0.5]

        sandbox.fault("/api/v3/statuses", status=429, count=1, retry_after=3)
        sleep = RecordingSleep()
        async with OpenProjectClient(sandbox.base_url, ADMIN_KEY, sleep=sleep) as client:
            await client.statuses()
        assert sleep.delays == [3.0]

        sandbox.fault("/api/v3/statuses", status=500, count=1)
        async with connect(sandbox) as client:
            with pytest.raises(ServerError):
                await client.statuses()
            assert await client.statuses()  # the fault was used up by one attempt
    finally:
        sandbox.clear_faults()


async def test_a_hanging_server_times_out_and_is_retried(sandbox: SandboxHandle) -> None:
    policy = RetryPolicy(max_attempts=2, base_delay=0.0, jitter=0)
    try:
        sandbox.fault("/api/v3/statuses", hang=3.0, count=2)
        async with connect(sandbox, timeout=1.0, retry=policy) as client:
            with pytest.raises(UpstreamUnavailableError) as caught:
                await client.statuses()
        assert "2 attempt" in str(caught.value)
        sandbox.fault("/api/v3/statuses", hang=3.0, count=1)
        async with connect(sandbox, timeout=1.0, retry=policy) as client:
            assert len(await client.statuses()) == 3
    finally:
        sandbox.clear_faults()


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        (
            {},
            {"meeting_agenda_items": True, "meeting_outcomes": True,
             "wiki_list": False, "wiki_text": True},
        ),
        (
            {"meetings_api": "17.4", "wiki_list": True},
            {"meeting_agenda_items": True, "meeting_outcomes": False,
             "wiki_list": True, "wiki_text": True},
        ),
        (
            {"meetings_api": "16", "no_wiki_text": True},
            {"meeting_agenda_items": False, "meeting_outcomes": False,
             "wiki_list": False, "wiki_text": False},
        ),
        (
            {"meetings_api": "17.6", "wiki_list": True, "no_wiki_text": True},
            {"meeting_agenda_items": True, "meeting_outcomes": True,
             "wiki_list": True, "wiki_text": False},
        ),
    ],
    ids=["17.6", "17.4-wiki-list", "16-no-wiki-text", "17.6-wiki-list-no-text"],
)  # fmt: skip
async def test_capabilities_per_sandbox_mode(
    options: dict[str, Any], expected: dict[str, bool]
) -> None:
    with running_sandbox(corpus(), **options) as handle:
        async with connect(handle) as client:
            caps = await detect_capabilities(client, wiki_page_ids=[8, 7])
    assert caps.meetings is True
    assert caps.model_dump(exclude={"meetings", "detected_at"}) == expected
