"""The corpus most sandbox tests run against: small, but with every case the rules care about."""

from __future__ import annotations

from typing import Any

from tests.support.sandbox import CLOSED_STATUS, CorpusBuilder

PAGE_SIZE_MAX = 30
BULK_IDS = range(201, 241)  # 40 open work packages in project 1, for paging


def varied_corpus() -> dict[str, Any]:
    """Open and closed work packages, comments (one internal), private/public/archived
    projects, wiki pages with an id gap, meetings with agenda items and outcomes."""
    builder = CorpusBuilder()
    builder.add_project(4, identifier="old", name="Archived Project", active=False, members=[1, 2])
    builder.add_work_package(
        101,
        subject="Renew TLS certificate",
        updatedAt="2026-03-04T12:00:00Z",
        activities=[
            {
                "id": 9001,
                "user": 2,
                "comment": "CSR generated.",
                "createdAt": "2026-03-02T10:00:00Z",
                "updatedAt": "2026-03-02T10:00:00Z",
            },
            {
                "id": 9002,
                "user": 1,
                "comment": "Internal: customer is unhappy.",
                "internal": True,
                "createdAt": "2026-03-03T10:00:00Z",
            },
            {
                "id": 9003,
                "user": 2,
                "details": ["Status changed from New to In progress"],
                "createdAt": "2026-03-04T12:00:00Z",
            },
        ],
    )
    builder.add_work_package(102, subject="Old closed task", status=CLOSED_STATUS, assignee=None)
    builder.add_work_package(103, project=2, subject="Hiring pipeline for platform engineers")
    builder.add_work_package(104, project=3, subject="Community forum spam filter", type=2)
    builder.add_work_package(150, project=4, subject="Archived work")
    for wp_id in BULK_IDS:
        day = 10 + (wp_id % 15)
        builder.add_work_package(wp_id, updatedAt=f"2026-04-{day:02d}T08:00:00Z")
    builder.add_wiki_page(7, title="Runbook", slug="runbook", text="Restart **everything**.")
    builder.add_wiki_page(8, project=2, title="Interview guide")
    builder.add_wiki_page(60, project=3, title="Forum rules")
    builder.add_meeting(
        12,
        title="Weekly sync",
        agendaItems=[
            {
                "id": 120,
                "title": "Hiring plan",
                "notes": "Two open positions.",
                "position": 1,
                "outcomes": [
                    {"id": 1200, "kind": "information", "notes": "Interviews next week."},
                    {"id": 1201, "kind": "decision", "notes": "We hire two engineers."},
                ],
            },
            {"id": 121, "title": "AOB", "position": 2},
        ],
    )
    builder.add_meeting(13, project=2, title="Hiring committee")
    builder.add_meeting(14, title="Planning 2030", startTime="2030-01-07T09:00:00Z", state="open")
    return builder.build()
