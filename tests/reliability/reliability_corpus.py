"""Small sandbox corpora for the reliability suite, with marker words per project and tenant.

Every record carries the marker word of its project, so a search for a marker shows at
once whose records an answer holds. Internal comments carry their own marker. A second
corpus ("other instance") reuses the same record ids with different words, so a record
served to the wrong tenant cannot go unnoticed.
"""

from __future__ import annotations

from typing import Any

from tests.support.sandbox import ADMIN_KEY, CLOSED_STATUS, MEMBER_KEY, OUTSIDER_KEY, CorpusBuilder

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
KIND_TABLES = {"work_package": "work_packages", "wiki_page": "wiki_pages", "meeting": "meetings"}
KINDS = tuple(KIND_TABLES)


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
