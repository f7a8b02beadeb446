"""The search suite's fixture documents (meetings, work packages, wiki pages) as
SearchDocuments, and the same documents as a sandbox corpus for the live-path tests.

``shared_fixture_corpus`` adds users for every author and participant name, projects for
every project name, agenda items with outcomes and comments as activities, so the live path
is checked against the very documents the scorer tests use.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.support.corpus_builder import CorpusBuilder

from opindex.search.document import FieldValue, Kind, SearchDocument
from opindex.search.query import Alternative

Values = tuple[FieldValue, ...]


def values(*texts: str) -> Values:
    return tuple(FieldValue(text) for text in texts)


def refs(*pairs: tuple[int, str]) -> Values:
    return tuple(FieldValue(text, ref) for ref, text in pairs)


def meeting(
    meeting_id: int,
    title: str,
    *,
    location: str = "",
    project: str = "Operations",
    author: str = "Jane Doe",
    agenda: tuple[tuple[int, str, str], ...] = (),
    outcomes: tuple[tuple[int, str], ...] = (),
    participants: tuple[str, ...] = (),
) -> SearchDocument:
    """A meeting with agenda items (id, title, notes), outcomes (item id, notes)."""
    return SearchDocument(
        kind="meeting",
        id=meeting_id,
        fields={
            "title": values(title),
            "location": values(location),
            "project": values(project),
            "author": values(author),
            "agenda_title": refs(*((item, title) for item, title, _ in agenda)),
            "agenda_notes": refs(*((item, notes) for item, _, notes in agenda)),
            "outcome_notes": refs(*outcomes),
            "participants": values(*participants),
        },
    )


MEETINGS: tuple[SearchDocument, ...] = (
    meeting(
        101,
        "Finance review",
        location="Room 4B",
        agenda=(
            (1001, "Approval of Q3 budget", "CFO presents the revised numbers for sign-off."),
            (1002, "Vendor contracts", "Renewal of the cloud hosting contract before March."),
        ),
        outcomes=((1001, "Budget approved with a 5% reserve."),),
        participants=("Jane Doe", "Carlos Ruiz"),
    ),
    meeting(
        102,
        "Engineering weekly",
        location="Zoom",
        project="Platform",
        author="Tom Baker",
        agenda=(
            (1021, "Incident follow-up", "Root cause of the login outage on Monday."),
            (1022, "Roadmap check", "Which epics slip to the next quarter."),
        ),
        outcomes=((1021, "Add alerting on the session store."),),
        participants=("Tom Baker", "Priya Nair", "Olga Petrova"),
    ),
    meeting(
        103,
        "Leadership sync",
        location="Board room",
        author="Tom Baker",
        agenda=(
            (1031, "Hiring plan", "Two open backend positions and the recruiter budget."),
            (1032, "Office move", "Timeline for the new building."),
        ),
        outcomes=(
            (1031, "Decision on hiring: open two senior backend roles in Q3."),
            (1032, "Move postponed to October."),
        ),
        participants=("Tom Baker", "Jane Doe"),
    ),
    meeting(
        104,
        "Architecture decision records",
        location="Zoom",
        project="Platform",
        author="Priya Nair",
        agenda=((1041, "Event bus", "Kafka versus a managed queue."),),
        participants=("Priya Nair", "Olga Petrova"),
    ),
    meeting(
        105,
        "Quarterly planning",
        location="Berlin office",
        project="Atlas migration",
        author="Anna Müller",
        agenda=((1051, "Capacity", "Who is available for the data migration."),),
        participants=("Anna Müller", "Olga Petrova"),
    ),
    meeting(
        106,
        "Weekly sync",
        location="Zoom",
        project="Website relaunch",
        author="Lena Fischer",
        agenda=((1061, "Landing page", "Hero image and copy review."),),
        outcomes=((1061, "New mockups due Friday."),),
        participants=("Lena Fischer", "Design Team", "Carlos Ruiz"),
    ),
    meeting(
        107,
        "Sprint retrospective",
        location="Café Central",
        project="Website relaunch",
        author="Lena Fischer",
        agenda=((1071, "What went well", "Deployments were smooth; fewer flaky tests."),),
        participants=("Lena Fischer", "Carlos Ruiz"),
    ),
    meeting(
        108,
        "Roadmap review",
        location="Room 2A",
        project="Platform",
        author="Tom Baker",
        agenda=((1081, "Priorities", "Order the epics for the next two quarters."),),
        participants=("Tom Baker", "Priya Nair"),
    ),
    meeting(
        109,
        "Budget meeting",
        location="Room 4B",
        author="Jane Doe",
        agenda=((1091, "Travel costs", "Conference travel for the autumn."),),
        participants=("Jane Doe",),
    ),
)


def work_package(
    wp_id: int,
    subject: str,
    description: str = "",
    comments: tuple[tuple[int, str], ...] = (),
) -> SearchDocument:
    """A work package with comments (activity id, text)."""
    return SearchDocument(
        kind="work_package",
        id=wp_id,
        fields={
            "subject": values(subject),
            "description": values(description),
            "comments": refs(*comments),
        },
    )


WORK_PACKAGES: tuple[SearchDocument, ...] = (
    work_package(
        201,
        "Database connection pool exhaustion",
        "Under load the service runs out of connections.",
        ((9001, "Reproduced with 200 concurrent users."),),
    ),
    work_package(
        202,
        "Connection settings page",
        "Pool the database options on one page; exhaustion of patience is real.",
    ),
    work_package(
        203,
        "Worker crashes nightly",
        "The import worker dies around 02:00.",
        (
            (9002, "Looks like a memory leak in the image resizer."),
            (9003, "Confirmed: the memory leak is in the resizer cache; fix in review."),
        ),
    ),
    work_package(204, "Async pool tuning", "Tune the async connection pool for the API."),
    work_package(205, "Tokio runtime upgrade", "Move the agent to the new tokio runtime."),
    work_package(206, "CICD pipeline hardening", "Pin the runner images."),
    work_package(207, "Fix login bug on Safari", "Session cookie is dropped."),
)


def wiki_page(page_id: int, title: str, text: str) -> SearchDocument:
    return SearchDocument(
        kind="wiki_page",
        id=page_id,
        fields={"title": values(title), "text": values(text)},
    )


WIKI_PAGES: tuple[SearchDocument, ...] = (
    wiki_page(
        301,
        "New joiners",
        "Welcome! Work through the onboarding checklist in your first week: laptop, "
        "accounts, and a buddy from your team.",
    ),
    wiki_page(302, "Release process", "Tag the release, deploy to staging, then production."),
    wiki_page(303, "Onboarding", "See the page for new joiners."),
    wiki_page(304, "Straße und Café", "Notizen zur Übergabe in der Zürcher Niederlassung."),
)


def record(
    kind: Kind, record_id: int, **fields: str | tuple[tuple[int, str], ...]
) -> SearchDocument:
    """A document of one of the listed kinds; a tuple value is (ref, text) pairs."""
    built = {
        name: refs(*value) if isinstance(value, tuple) else values(value)
        for name, value in fields.items()
    }
    return SearchDocument(kind=kind, id=record_id, fields=built)


NEWS: tuple[SearchDocument, ...] = (
    record("news", 801, title="Q3 budget approved", summary="The board said yes",
           description="Approval came after the roadmap review with Jürgen Müller."),
    record("news", 802, title="Café opens on floor 3", summary="Espresso for everyone",
           description="Menu and opening hours of the café."),
    record("news", 803, title="Memory leak fixed", summary="Agents restart less often",
           description="A leak in the sync worker was found and fixed."),
)  # fmt: skip
DOCUMENTS: tuple[SearchDocument, ...] = (
    record("document", 851, title="Budget approval policy", description="Who signs what."),
    record("document", 852, title="Supplier contracts", description="Signed originals.",
           attachments=((952, "The indemnification clause covers third-party claims."),)),
    record("document", 853, title="Roadmap 2027", description="Themes for Q3 and Q4."),
)  # fmt: skip
PROJECTS: tuple[SearchDocument, ...] = (
    record("project", 1, name="Operations", identifier="ops", description="Keeps the lights on.",
           status_explanation="Budget freeze until the audit ends."),
    record("project", 2, name="People & Hiring", identifier="hr",
           description="Recruiting, onboarding and the café committee.", status_explanation=""),
    record("project", 3, name="Platform", identifier="platform",
           description="Memory and latency work.", status_explanation="On track for Q3."),
)  # fmt: skip
VERSIONS: tuple[SearchDocument, ...] = (
    record("version", 871, name="Release Aurora", description="Ships the roadmap view."),
    record("version", 872, name="Q3 budget", description="Approval workflow for budgets."),
    record("version", 873, name="Müller", description="Named after Jürgen Müller."),
)
ATTACHMENTS: tuple[SearchDocument, ...] = (
    record("attachment", 951, file_name="menu.pdf", description="Café menu",
           content="Menu and opening hours of the café."),
    record("attachment", 952, file_name="contract.pdf", description="Signed",
           content="The indemnification clause covers third-party claims. Budget approval."),
    record("attachment", 953, file_name="leak-report.docx", description="",
           content="Memory leak analysis for Q3 with a roadmap of fixes."),
)  # fmt: skip

CORPUS: dict[Kind, tuple[SearchDocument, ...]] = {
    "meeting": MEETINGS,
    "work_package": WORK_PACKAGES,
    "wiki_page": WIKI_PAGES,
    "news": NEWS,
    "document": DOCUMENTS,
    "project": PROJECTS,
    "version": VERSIONS,
    "attachment": ATTACHMENTS,
}


def document(kind: Kind, doc_id: int) -> SearchDocument:
    return next(doc for doc in CORPUS[kind] if doc.id == doc_id)


def fuzzy_doc_freq(kind: Kind) -> Callable[[Alternative], int]:
    """Documents of *kind* holding a token each alternative matches by the scorer's rules."""
    from opindex.search.query import alternative_score
    from opindex.search.tokenizer import token_texts

    holdings = [
        {t for vals in doc.fields.values() for v in vals for t in token_texts(v.text)}
        for doc in CORPUS[kind]
    ]

    def frequency(alternative: Alternative) -> int:
        return sum(
            1 for tokens in holdings if any(alternative_score(alternative, t) > 0 for t in tokens)
        )

    return frequency


def doc_freq(kind: Kind) -> dict[str, int]:
    """Documents of *kind* containing each exact token (a fixture frequency table)."""
    from opindex.search.tokenizer import token_texts

    counts: dict[str, int] = {}
    for doc in CORPUS[kind]:
        tokens = {t for vals in doc.fields.values() for v in vals for t in token_texts(v.text)}
        for token in tokens:
            counts[token] = counts.get(token, 0) + 1
    return counts


FIRST_USER_ID = 10
FIRST_PROJECT_ID = 10


def _texts(document: SearchDocument, name: str) -> list[str]:
    return [value.text for value in document.fields.get(name, ())]


def _first(document: SearchDocument, name: str) -> str | None:
    texts = [text for text in _texts(document, name) if text]
    return texts[0] if texts else None


class _Directory:
    """Users and projects created on demand by name."""

    def __init__(self, builder: CorpusBuilder) -> None:
        self.builder = builder
        self.users: dict[str, int] = {}
        self.projects: dict[str, int] = {}

    def user(self, name: str) -> int:
        if name not in self.users:
            user_id = FIRST_USER_ID + len(self.users)
            self.users[name] = user_id
            login = f"user{user_id}"
            self.builder.data["users"].append(
                {"id": user_id, "login": login, "name": name, "admin": False}
            )
        return self.users[name]

    def project(self, name: str) -> int:
        if name not in self.projects:
            project_id = FIRST_PROJECT_ID + len(self.projects)
            self.projects[name] = project_id
            self.builder.add_project(project_id, name=name, members=[1])
        return self.projects[name]


def _meeting(directory: _Directory, document: SearchDocument, start: str) -> None:
    notes = {value.ref: value.text for value in document.fields.get("agenda_notes", ())}
    outcomes: dict[int | None, list[str]] = {}
    for value in document.fields.get("outcome_notes", ()):
        outcomes.setdefault(value.ref, []).append(value.text)
    items: list[dict[str, Any]] = []
    for position, value in enumerate(document.fields.get("agenda_title", ()), start=1):
        assert value.ref is not None
        items.append(
            {
                "id": value.ref,
                "title": value.text,
                "notes": notes.get(value.ref),
                "position": position,
                "outcomes": [
                    {"id": value.ref * 10 + index, "kind": "information", "notes": text}
                    for index, text in enumerate(outcomes.get(value.ref, []), start=1)
                ],
            }
        )
    directory.builder.add_meeting(
        document.id,
        title=_first(document, "title") or "",
        location=_first(document, "location"),
        project=directory.project(_first(document, "project") or "Operations"),
        author=directory.user(_first(document, "author") or "Jane Doe"),
        participants=[directory.user(name) for name in _texts(document, "participants")],
        startTime=start,
        agendaItems=items,
    )


def _work_package(builder: CorpusBuilder, document: SearchDocument, updated: str) -> None:
    builder.add_work_package(
        document.id,
        subject=_first(document, "subject") or "",
        description=_first(document, "description"),
        updatedAt=updated,
        activities=[
            {"id": value.ref, "user": 1, "comment": value.text}
            for value in document.fields.get("comments", ())
        ],
    )


def shared_fixture_corpus() -> dict[str, Any]:
    """Every fixture document of the search suite as one sandbox corpus."""
    builder = CorpusBuilder()
    directory = _Directory(builder)
    for index, document in enumerate(CORPUS["meeting"]):
        _meeting(directory, document, f"2026-03-{index + 1:02d}T09:00:00Z")
    for index, document in enumerate(CORPUS["work_package"]):
        _work_package(builder, document, f"2026-04-{index + 1:02d}T09:00:00Z")
    for document in CORPUS["wiki_page"]:
        builder.add_wiki_page(
            document.id, title=_first(document, "title") or "", text=_first(document, "text")
        )
    return builder.build()


def containment_ids(kind: Kind, needle: str) -> list[int]:
    """Ids of fixture documents of *kind* with a field value containing *needle*
    (case-insensitive), ascending: what legacy exact matching returns."""
    lowered = needle.lower()
    return sorted(
        document.id
        for document in CORPUS[kind]
        if any(
            lowered in value.text.lower() for values in document.fields.values() for value in values
        )
    )
