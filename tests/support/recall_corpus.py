"""The recall fixture: spec §7.4 cases plus extended ones, as a sandbox corpus.

Every case names the record that must come first. Unrelated filler records share words
with the cases so that ranking, not mere matching, decides.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tests.support.corpus_builder import CLOSED_STATUS, MEMBER_KEY, CorpusBuilder

RECALL_KEY = MEMBER_KEY  # user 2 "Bob Müller": member of projects 1 and 2
DESIGN_USERS = (4, 5)


@dataclass(frozen=True, slots=True)
class RecallCase:
    """A query, the kind it searches, and the id that must rank first."""

    query: str
    kind: str  # CLI spelling: work_packages / meetings / wiki_pages
    expected_id: int
    source: str  # "spec" (§7.4) or "extended"


RECALL_CASES: tuple[RecallCase, ...] = (
    # spec §7.4
    RecallCase("budget aproval", "meetings", 31, "spec"),
    RecallCase("approval of the budget", "meetings", 31, "spec"),
    RecallCase("what did we decide about hiring", "meetings", 32, "spec"),
    RecallCase("meeting with the design team", "meetings", 33, "spec"),
    RecallCase("muller", "meetings", 34, "spec"),
    # extended: typos, reordering, partial words, diacritics, deep content, wiki bodies
    RecallCase("certifcate renewal", "work_packages", 11, "extended"),
    RecallCase("renewal certificate TLS", "work_packages", 11, "extended"),
    RecallCase("kubernet upgrade", "work_packages", 12, "extended"),
    RecallCase("invoice rounding", "work_packages", 13, "extended"),  # comment only
    RecallCase("zurich office move", "work_packages", 14, "extended"),  # Zürich
    RecallCase("grafana dashbord latency", "work_packages", 15, "extended"),  # description
    RecallCase("disaster recovery runbok", "wiki_pages", 21, "extended"),
    RecallCase("restore the postgres snapshot", "wiki_pages", 22, "extended"),  # body only
    RecallCase("retrospective action items", "meetings", 35, "extended"),
)


def _agenda(item_id: int, title: str, notes: str = "", outcomes: tuple[str, ...] = ()) -> Any:
    return {
        "id": item_id,
        "title": title,
        "notes": notes,
        "position": item_id % 100,
        "outcomes": [
            {"id": item_id * 10 + i, "kind": "decision", "notes": text}
            for i, text in enumerate(outcomes)
        ],
    }


def recall_corpus() -> dict[str, Any]:
    """The corpus behind RECALL_CASES (plus filler)."""
    b = CorpusBuilder()
    b.data["users"] += [
        {"id": 4, "login": "dana", "name": "Dana Lee (design team)", "admin": False},
        {"id": 5, "login": "eli", "name": "Eli Park (design team)", "admin": False},
    ]
    b.data["projects"][0]["members"] += list(DESIGN_USERS)
    b.add_work_package(11, subject="TLS certificate renewal for the gateway")
    b.add_work_package(12, subject="Kubernetes cluster upgrade to 1.31", type=2)
    b.add_work_package(
        13,
        subject="Billing export",
        description="Monthly export for the finance team.",
        activities=[
            {"id": 9001, "user": 1, "comment": "Exported March without problems."},
            {"id": 9002, "user": 2, "comment": "Invoice totals differ by a cent: rounding."},
        ],
    )
    b.add_work_package(14, subject="Office move to Zürich", status=CLOSED_STATUS)
    b.add_work_package(
        15,
        subject="Monitoring improvements",
        description="Add a Grafana dashboard for p95 latency of the public API.",
    )
    b.add_work_package(16, subject="Certificate inventory", description="List every cert.")
    b.add_work_package(17, subject="Upgrade office printers", project=2)
    b.add_work_package(18, subject="Budget review", description="Approval pending.")
    b.add_wiki_page(21, title="Disaster recovery runbook", text="Who to call first.")
    b.add_wiki_page(
        22,
        title="Database operations",
        text="## Backups\n\nTo restore a Postgres snapshot, stop the writers first.",
    )
    b.add_wiki_page(23, title="Recovery of deleted projects", text="Ask an admin.")
    b.add_meeting(
        31,
        title="Finance sync",
        author=1,
        participants=[1],
        agendaItems=[_agenda(3101, "Approval of Q3 budget", "Numbers from finance.")],
    )
    b.add_meeting(
        32,
        title="People planning",
        author=1,
        project=2,
        participants=[1],
        agendaItems=[
            _agenda(3201, "Hiring plan", "Two roles open.", ("Decision: hiring two engineers.",))
        ],
    )
    b.add_meeting(33, title="Weekly check-in", author=1, participants=[1, *DESIGN_USERS])
    b.add_meeting(34, title="Vendor call", author=2, participants=[1])
    b.add_meeting(
        35,
        title="Sprint 14 retrospective",
        author=1,
        participants=[1],
        agendaItems=[_agenda(3501, "Action items", "Follow up on flaky tests.")],
    )
    b.add_meeting(
        36,
        title="Budget meeting",
        author=1,
        participants=[1],
        agendaItems=[_agenda(3601, "Forecast")],
    )
    return b.build()
