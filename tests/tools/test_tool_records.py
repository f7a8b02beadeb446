"""Whole records: comments with authors and dates, priority; meetings said once."""

from __future__ import annotations

from datetime import datetime

from tests.tools.conftest import SampleSite, structured, text_of, tools_client
from tests.tools.sample_facts import corpus


def _work_package(record_id: int) -> dict[str, object]:
    return next(wp for wp in corpus()["work_packages"] if wp["id"] == record_id)


def _moment(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def _user_name(user_id: int) -> str:
    return next(str(u["name"]) for u in corpus()["users"] if u["id"] == user_id)


async def test_a_work_package_comes_with_comment_authors_dates_and_priority(
    sample_site: SampleSite,
) -> None:
    async with tools_client(sample_site, "admin") as client:
        result = await client.call_tool("openproject_get_work_package", {"id": 1002})
    record = structured(result)["record"]
    source = _work_package(1002)
    expected = [
        (a["id"], _user_name(a["user"]), _moment(a["createdAt"]), a["comment"])
        for a in source["activities"]  # type: ignore[attr-defined]
        if a.get("comment")
    ]
    got = [(c["id"], c["author"], _moment(c["createdAt"]), c["text"]) for c in record["comments"]]
    assert got == expected and expected
    assert record["attributes"]["priorityName"] == "Normal"
    assert "comments" not in record.get("fields", {})  # said once, with its author
    first = expected[0]
    assert f"#{first[0]} by {first[1]} on {first[2]:%Y-%m-%d}: {first[3]}" in text_of(result)
    assert "priority: Normal" in text_of(result)


async def test_a_meeting_says_each_thing_once(sample_site: SampleSite) -> None:
    async with tools_client(sample_site, "admin") as client:
        result = await client.call_tool("openproject_get_meeting", {"id": 1})
    meeting = next(m for m in corpus()["meetings"] if m["id"] == 1)
    text = text_of(result)
    assert text.count(meeting["location"]) == 1
    assert text.count(_user_name(meeting["author"])) <= 2  # author, and at most a participant
    record = structured(result)["record"]
    assert [item["id"] for item in record["agendaItems"]] == [
        item["id"] for item in meeting["agendaItems"]
    ]
    assert not {"agenda_title", "agendaTitle", "location", "author"} & set(record["fields"])
    for item in meeting["agendaItems"]:
        for outcome in item["outcomes"]:
            assert text.count(outcome["notes"]) == 1


async def test_internal_comments_only_where_the_account_may_see_them(
    sample_site: SampleSite,
) -> None:
    internal = [
        (wp["id"], a["id"])
        for wp in corpus()["work_packages"]
        if wp["project"] == 1  # Operations: Jürgen is a member, not an admin
        for a in wp["activities"]
        if a.get("internal") and a.get("comment")
    ]
    record_id, comment_id = internal[0]
    async with tools_client(sample_site, "admin") as client:
        admin = structured(
            await client.call_tool("openproject_get_work_package", {"id": record_id})
        )
    async with tools_client(sample_site, "juergen") as client:
        member = await client.call_tool("openproject_get_work_package", {"id": record_id})
    shown = {c["id"]: c for c in admin["record"]["comments"]}
    assert shown[comment_id]["internal"] is True
    assert "[internal]" not in text_of(member)
    assert comment_id not in {c["id"] for c in structured(member)["record"]["comments"]}
