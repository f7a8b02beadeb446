"""The sandbox corpora several suites share, and who may see what in them.

- ``sample_corpus``: the syncer's corpus (four projects, wiki ids with gaps, meetings).
- ``reliability_corpus`` / ``other_instance_corpus``: every record carries the marker word of
  its project, so a search for a marker shows at once whose records an answer holds; internal
  comments carry their own marker; the second instance reuses the same ids with other words,
  so a record served to the wrong tenant cannot go unnoticed.
- ``varied_corpus``: small, with every case the sandbox's API rules care about.
- ``two_team_corpus``: Bob (MEMBER_KEY) is a member of "Operations" (project 1) only, Carol
  (OUTSIDER_KEY) of "Research" (project 4) only; each team has a work package, a meeting and a
  wiki page about a "quarterly budget", so one query matches records of both teams.
"""

from __future__ import annotations

from typing import Any

from tests.support.corpus_builder import (
    ADMIN_KEY,
    CLOSED_STATUS,
    MEMBER_KEY,
    OUTSIDER_KEY,
    CorpusBuilder,
)

KIND_TABLES = {"work_package": "work_packages", "wiki_page": "wiki_pages", "meeting": "meetings"}
KINDS = tuple(KIND_TABLES)


def visible_projects(corpus: dict[str, Any], user_id: int) -> set[int]:
    """Projects a user sees: all for an admin, else member or public ones."""
    user = next(u for u in corpus["users"] if u["id"] == user_id)
    return {
        project["id"]
        for project in corpus["projects"]
        if user.get("admin") or user_id in (project.get("members") or []) or project.get("public")
    }


def expected_ids(corpus: dict[str, Any], user_id: int, kind: str) -> set[int]:
    """Ids of the records of ``kind`` the user can see."""
    projects = visible_projects(corpus, user_id)
    return {r["id"] for r in corpus[KIND_TABLES[kind]] if r["project"] in projects}


def expected_all(corpus: dict[str, Any], user_id: int) -> dict[str, set[int]]:
    """Per kind, the ids the user can see."""
    return {kind: expected_ids(corpus, user_id, kind) for kind in KINDS}


def user_of(corpus: dict[str, Any], key: str) -> int:
    """The user id an API key belongs to."""
    return int(corpus["api_keys"][key])


WIKI_IDS = (1, 2, 3, 9, 51, 52, 60, 61, 70, 90)
"""Wiki page ids with gaps (4-8, 10-50, 53-59, 62-69, 71-89) and well past id 50."""


def sample_corpus() -> dict[str, Any]:
    """Three projects (1 ops: everyone; 2 hr: users 1+2; 3 community: public, member 1)
    plus project 4 (only the admin): open and closed work packages with comments, some
    internal; wiki pages spread over ids with gaps; meetings with agenda and outcomes."""
    builder = CorpusBuilder()
    builder.add_project(4, identifier="board", name="Board", members=[1])
    projects = (1, 2, 3, 4)
    for wp_id in range(1, 41):
        project = projects[wp_id % 4]
        activities = [
            {
                "id": 10_000 + wp_id * 10 + n,
                "user": 1 + n % 2,
                "comment": f"Comment {n} on work package {wp_id} about certificates",
                "internal": n == 1 and wp_id % 5 == 0,
                "createdAt": "2026-03-02T10:00:00Z",
                "updatedAt": "2026-03-02T10:00:00Z",
            }
            for n in range(2)
        ]
        builder.add_work_package(
            wp_id,
            project=project,
            subject=f"Task {wp_id} renew certificate",
            status=CLOSED_STATUS if wp_id % 3 == 0 else 1,
            activities=activities,
            updatedAt=f"2026-03-{1 + wp_id % 20:02d}T09:{wp_id % 60:02d}:00Z",
        )
    for index, page_id in enumerate(WIKI_IDS):
        builder.add_wiki_page(
            page_id,
            project=projects[index % 4],
            title=f"Runbook {page_id}",
            text=f"How to rotate keys, page {page_id}.",
        )
    for meeting_id in range(1, 9):
        builder.add_meeting(
            meeting_id,
            project=projects[meeting_id % 4],
            title=f"Weekly sync {meeting_id}",
            updatedAt=f"2026-03-0{1 + meeting_id % 8}T10:00:00Z",
            agendaItems=[
                {
                    "id": meeting_id * 100 + n,
                    "title": f"Agenda item {n} of meeting {meeting_id}",
                    "notes": f"Notes about hiring plan {meeting_id}/{n}",
                    "position": n,
                    "outcomes": [
                        {
                            "id": meeting_id * 1000 + n,
                            "kind": "decision",
                            "notes": f"Decided to hire {meeting_id}/{n}",
                        }
                    ],
                }
                for n in (1, 2)
            ],
        )
    return builder.build()


PROJECT_MARKERS = {1: "alphaops", 2: "bravohr", 3: "charliepublic", 4: "deltaboard"}
"""Project id -> a word found only in that project's records."""
INTERNAL_MARKER = "zuluinternal"
"""A word found only in internal comments (visible to admins only)."""
OTHER_MARKER = "kiloforeign"
"""A word found only in the second instance's corpus."""

BOB = 2  # MEMBER_KEY: projects 1, 2 and the public project 3
CAROL = 3  # OUTSIDER_KEY: project 1 and the public project 3
ADA = 1  # ADMIN_KEY: everything, internal comments included
USER_OF_KEY = {ADMIN_KEY: ADA, MEMBER_KEY: BOB, OUTSIDER_KEY: CAROL}


def reliability_corpus(work_packages: int = 16) -> dict[str, Any]:
    """Four projects (4 "board": admin only), work packages with comments (some internal),
    wiki pages and meetings spread over them."""
    builder = CorpusBuilder()
    builder.add_project(4, identifier="board", name="Board", members=[1])
    for wp_id in range(1, work_packages + 1):
        project = 1 + wp_id % 4
        marker = PROJECT_MARKERS[project]
        activities = [
            {
                "id": 5000 + wp_id * 10 + n,
                "user": 1 + n % 2,
                "comment": (
                    f"Restricted {INTERNAL_MARKER} note {wp_id}"
                    if n == 1 and wp_id % 3 == 0
                    else f"Comment {n} about {marker} certificate rotation"
                ),
                "internal": n == 1 and wp_id % 3 == 0,
                "createdAt": "2026-03-02T10:00:00Z",
                "updatedAt": "2026-03-02T10:00:00Z",
            }
            for n in range(2)
        ]
        builder.add_work_package(
            wp_id,
            project=project,
            subject=f"Renew {marker} certificate {wp_id}",
            description=f"The {marker} team renews certificate number {wp_id}.",
            status=CLOSED_STATUS if wp_id % 5 == 0 else 1,
            activities=activities,
            updatedAt=f"2026-03-{1 + wp_id % 20:02d}T09:{wp_id % 60:02d}:00Z",
        )
    for page_id in range(1, 9):
        project = 1 + page_id % 4
        marker = PROJECT_MARKERS[project]
        builder.add_wiki_page(
            page_id,
            project=project,
            title=f"Runbook {marker} {page_id}",
            text=f"How the {marker} team rotates keys, page {page_id}.",
        )
    for meeting_id in range(1, 5):
        project = 1 + meeting_id % 4
        marker = PROJECT_MARKERS[project]
        builder.add_meeting(
            meeting_id,
            project=project,
            title=f"Weekly {marker} sync {meeting_id}",
            updatedAt=f"2026-03-0{1 + meeting_id}T10:00:00Z",
            agendaItems=[
                {
                    "id": meeting_id * 100 + 1,
                    "title": f"Hiring plan {marker}",
                    "notes": f"Notes about the {marker} hiring plan",
                    "position": 1,
                    "outcomes": [
                        {"id": meeting_id * 1000, "kind": "decision", "notes": f"Hire {marker}"}
                    ],
                }
            ],
        )
    return builder.build()


def other_instance_corpus() -> dict[str, Any]:
    """A second OpenProject instance: the same ids as :func:`reliability_corpus`, other words."""
    builder = CorpusBuilder()
    for wp_id in range(1, 9):
        builder.add_work_package(
            wp_id,
            subject=f"Foreign {OTHER_MARKER} invoice {wp_id}",
            description=f"Invoice {OTHER_MARKER} number {wp_id} renew certificate.",
        )
    for page_id in range(1, 4):
        builder.add_wiki_page(page_id, title=f"Foreign {OTHER_MARKER} page {page_id}")
    for meeting_id in range(1, 3):
        builder.add_meeting(meeting_id, title=f"Foreign {OTHER_MARKER} meeting {meeting_id}")
    return builder.build()


VARIED_PAGE_SIZE_MAX = 30
VARIED_BULK_IDS = range(201, 241)  # 40 open work packages in project 1, for paging


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
    for wp_id in VARIED_BULK_IDS:
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


BOB_KEY = MEMBER_KEY
CAROL_KEY = OUTSIDER_KEY
OPS, RESEARCH = 1, 4
BOB_WP, CAROL_WP = 11, 21
BOB_MEETING, CAROL_MEETING = 31, 41
BOB_WIKI, CAROL_WIKI = 51, 61
BOB_IDS = {BOB_WP, BOB_MEETING, BOB_WIKI}
CAROL_IDS = {CAROL_WP, CAROL_MEETING, CAROL_WIKI}


def two_team_corpus() -> dict[str, Any]:
    """Bob's and Carol's teams, each with a quarterly-budget work package, meeting and
    wiki page (see the module docstring)."""
    builder = CorpusBuilder()
    builder.data["projects"][0]["members"] = [1, 2]
    builder.add_project(RESEARCH, identifier="research", name="Research", members=[1, 3])
    builder.add_work_package(
        BOB_WP,
        project=OPS,
        subject="Quarterly budget review for operations",
        description="Collect the cost centres and compare them with the plan.",
        assignee=2,
        activities=[
            {
                "id": 701,
                "user": 2,
                "comment": "The flamingo dashboard shows the overspend on cloud costs.",
                "createdAt": "2026-03-03T10:00:00Z",
            },
            {
                "id": 702,
                "user": 1,
                "comment": "Numbers look fine otherwise.",
                "createdAt": "2026-03-04T10:00:00Z",
            },
        ],
    )
    builder.add_work_package(
        CAROL_WP,
        project=RESEARCH,
        subject="Quarterly budget forecast for research",
        description="Estimate lab equipment and travel for the next quarter.",
        assignee=3,
        author=3,
    )
    builder.add_meeting(
        BOB_MEETING,
        project=OPS,
        title="Operations quarterly budget meeting",
        author=2,
        participants=[1, 2],
        agendaItems=[
            {
                "id": 801,
                "title": "Budget approval",
                "notes": "Approve the quarterly budget of operations.",
                "position": 1,
                "outcomes": [],
            }
        ],
    )
    builder.add_meeting(
        CAROL_MEETING,
        project=RESEARCH,
        title="Research quarterly budget meeting",
        author=3,
        participants=[1, 3],
    )
    builder.add_wiki_page(
        BOB_WIKI,
        project=OPS,
        title="Operations budget guide",
        text="How the quarterly budget of operations is prepared and approved.",
    )
    builder.add_wiki_page(
        CAROL_WIKI,
        project=RESEARCH,
        title="Research budget guide",
        text="How the quarterly budget of research is prepared and approved.",
    )
    return builder.build()
