"""A seeded, deterministic generator of realistic sandbox corpora of any size."""

from __future__ import annotations

import gc
import json
import random
import unicodedata
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from opindex.errors import InvalidArgumentError
from opindex.sandbox import corpus_vocabulary as vocab
from opindex.sandbox.corpus_clock import EPOCH, FUTURE_START, HISTORY_DAYS, stamp
from opindex.sandbox.corpus_gen_publications import publication_sections
from opindex.sandbox.corpus_text import TextFiller, wiki_body

ADMIN_KEY = "key-admin"  # user 1, an administrator: sees every project and internal comment


FillerFactory = Callable[[random.Random], TextFiller]
"""Makes the text filler of a corpus from the generator's seeded ``Random``."""


@dataclass(frozen=True, slots=True)
class CorpusSize:
    """How many records of each kind to generate."""

    work_packages: int
    wiki_pages: int
    meetings: int
    projects: int
    # Optional kinds (``corpus_gen_publications``); none unless asked for, so corpora
    # generated before they existed keep their bytes.
    news: int = 0
    documents: int = 0
    versions: int = 0
    posts: int = 0
    attachments: int = 0

    @classmethod
    def proportional(
        cls,
        work_packages: int,
        *,
        wiki_pages: int | None = None,
        meetings: int | None = None,
        projects: int | None = None,
    ) -> CorpusSize:
        """Sizes derived from the number of work packages unless given."""
        if work_packages < 0:
            raise InvalidArgumentError("the number of work packages must not be negative")
        size = cls(
            work_packages=work_packages,
            wiki_pages=max(3, work_packages // 20) if wiki_pages is None else wiki_pages,
            meetings=max(3, work_packages // 25) if meetings is None else meetings,
            projects=min(12, 3 + work_packages // 2000) if projects is None else projects,
        )
        if min(size.wiki_pages, size.meetings) < 0 or size.projects < 1:
            raise InvalidArgumentError("record counts must not be negative; projects at least 1")
        return size


def ascii_login(name: str) -> str:
    """``Łukasz Nowak`` -> ``lukasz.nowak``: logins are plain ASCII."""
    special = str.maketrans({"ł": "l", "Ł": "L", "ø": "o", "Ø": "O", "ß": "ss", "ı": "i", "'": ""})
    decomposed = unicodedata.normalize("NFKD", name.translate(special))
    plain = "".join(c for c in decomposed if not unicodedata.combining(c))
    return ".".join(plain.lower().split())


class _Generator:
    """Builds one corpus; every random choice goes through one seeded ``Random``."""

    def __init__(self, size: CorpusSize, seed: int, filler: FillerFactory = TextFiller) -> None:
        self.size = size
        self.rng = random.Random(seed)
        self.text = filler(self.rng)
        self.users: list[dict[str, Any]] = []
        self.projects: list[dict[str, Any]] = []
        self.closed_statuses: list[int] = []
        self.open_statuses: list[int] = []
        self.next_activity_id = 1
        self.next_item_id = 1
        self.next_outcome_id = 1
        self.wp_projects: list[int] = []  # project of work package i + 1
        self.wiki_projects: list[tuple[int, int]] = []  # (wiki page id, project)

    # --- people and projects ------------------------------------------------------------

    def make_users(self) -> list[dict[str, Any]]:
        count = min(120, 8 + 3 * self.size.projects)
        users = [{"id": 1, "login": "admin", "name": "Ada Admin", "admin": True}]
        logins = {"admin"}
        for index in range(1, count):
            first = vocab.FIRST_NAMES[index % len(vocab.FIRST_NAMES)]
            last = vocab.LAST_NAMES[(index * 11 + 3) % len(vocab.LAST_NAMES)]
            name = f"{first} {last}"
            login = ascii_login(name)
            while login in logins:
                login += str(index)
            logins.add(login)
            users.append(
                {
                    "id": index + 1,
                    "login": login,
                    "name": name,
                    "admin": False,
                    "email": f"{login}@example.org",
                }
            )
        self.users = users
        return users

    def make_projects(self) -> list[dict[str, Any]]:
        people = [u["id"] for u in self.users[1:]]
        projects: list[dict[str, Any]] = []
        for index in range(self.size.projects):
            if index < len(vocab.PROJECT_NAMES):
                identifier, name = vocab.PROJECT_NAMES[index]
            else:
                word = vocab.CODEWORDS[index % len(vocab.CODEWORDS)]
                identifier, name = f"{word}-{index}", f"{word.capitalize()} Programme {index}"
            public = identifier == "community"
            share = 0.25 if public else self.rng.uniform(0.35, 0.7)
            members = sorted(self.rng.sample(people, max(2, round(len(people) * share))))
            projects.append(
                {
                    "id": index + 1,
                    "identifier": identifier,
                    "name": name,
                    "active": True,
                    "public": public,
                    "members": [1, *members],
                    "description": f"Everything about {name.lower()}.",
                    "createdAt": stamp(EPOCH - timedelta(days=30 - index)),
                    "updatedAt": stamp(EPOCH + timedelta(days=index)),
                }
            )
        # Every person belongs somewhere: the first project takes in anyone left out.
        covered = {m for p in projects for m in p["members"]}
        projects[0]["members"] = sorted(set(projects[0]["members"]) | (set(people) - covered))
        self.projects = projects
        return projects

    def members(self, project: dict[str, Any]) -> list[int]:
        people: list[int] = [m for m in project["members"] if m != 1]
        return people or [1]

    def names(self, user_ids: Sequence[int]) -> list[str]:
        return [self.users[uid - 1]["name"] for uid in user_ids]

    def pick_project(self) -> dict[str, Any]:
        # The first projects carry more content, as busy teams do.
        weights = [1.0 / (1 + 0.3 * i) for i in range(len(self.projects))]
        return self.rng.choices(self.projects, weights)[0]

    def moment(self, earliest: datetime, spread_days: float) -> datetime:
        seconds = self.rng.uniform(0, spread_days * 86400)
        return (earliest + timedelta(seconds=seconds)).replace(microsecond=0)

    # --- work packages ------------------------------------------------------------------

    def make_statuses(self) -> list[dict[str, Any]]:
        statuses = []
        for index, (name, closed) in enumerate(vocab.STATUSES, start=1):
            statuses.append({"id": index, "name": name, "isClosed": closed})
            (self.closed_statuses if closed else self.open_statuses).append(index)
        return statuses

    def make_work_package(self, wp_id: int) -> dict[str, Any]:
        rng = self.rng
        project = self.pick_project()
        people = self.members(project)
        self.text.start_record(self.names(people))
        created = self.moment(EPOCH, HISTORY_DAYS)
        closed = rng.random() < 0.35
        status = rng.choice(self.closed_statuses if closed else self.open_statuses)
        activities = []
        moment = created
        for _ in range(rng.choice((0, 1, 2, 2, 3, 3, 4, 5))):
            moment += timedelta(minutes=rng.randint(20, 60 * 24 * 9))
            activities.append(self.make_activity(people, moment))
        updated = moment + timedelta(minutes=rng.randint(0, 90))
        self.wp_projects.append(project["id"])
        return {
            "id": wp_id,
            "project": project["id"],
            "subject": self.text.fill(rng.choice(vocab.SUBJECT_TEMPLATES)),
            "description": self.text.description(),
            "type": rng.randint(1, len(vocab.TYPES)),
            "status": status,
            "author": rng.choice(people),
            "assignee": rng.choice(people) if rng.random() < 0.8 else None,
            "createdAt": stamp(created),
            "updatedAt": stamp(updated),
            "activities": activities,
        }

    def make_activity(self, people: list[int], moment: datetime) -> dict[str, Any]:
        rng = self.rng
        activity_id = self.next_activity_id
        self.next_activity_id += 1
        record: dict[str, Any] = {"id": activity_id, "user": rng.choice(people)}
        if rng.random() < 0.25:
            record["details"] = [self.text.fill(rng.choice(vocab.CHANGE_DETAILS))]
            record["comment"] = None
            record["internal"] = False
        else:
            internal = rng.random() < 0.08
            record["comment"] = self.text.comment(internal=internal)
            record["internal"] = internal
        record["createdAt"] = stamp(moment)
        edited = rng.random() < 0.1
        record["updatedAt"] = stamp(moment + timedelta(minutes=rng.randint(1, 300) * edited))
        return record

    # --- wiki pages ---------------------------------------------------------------------

    def wiki_ids(self) -> list[int]:
        """Ids with gaps: runs of 5+ missing ids now and then, and ids beyond 50."""
        count = self.size.wiki_pages
        steps = [1 if self.rng.random() > 0.08 else self.rng.randint(6, 12) for _ in range(count)]
        if steps:
            steps[0] = 1
        if count >= 2:
            middle = count // 2
            steps[middle] = max(steps[middle], 6)
            deficit = 51 - sum(steps[1:])
            if deficit > 0:
                steps[middle] += deficit
        ids, current = [], 0
        for step in steps:
            current += step
            ids.append(current)
        return ids

    def make_wiki_page(self, page_id: int) -> dict[str, Any]:
        rng = self.rng
        project = self.pick_project()
        self.text.start_record(self.names(self.members(project)))
        title = self.text.fill(rng.choice(vocab.WIKI_TITLES))
        created = self.moment(EPOCH, HISTORY_DAYS)
        updated = created + timedelta(hours=rng.randint(0, 24 * 90))
        self.wiki_projects.append((page_id, project["id"]))
        return {
            "id": page_id,
            "project": project["id"],
            "title": f"{title} ({page_id})" if rng.random() < 0.3 else title,
            "text": wiki_body(self.text, rng),
            "createdAt": stamp(created),
            "updatedAt": stamp(updated),
        }

    # --- meetings -----------------------------------------------------------------------

    def make_meeting(self, meeting_id: int) -> dict[str, Any]:
        rng = self.rng
        project = self.pick_project()
        people = self.members(project)
        self.text.start_record(self.names(people))
        upcoming = rng.random() < 0.15
        if upcoming:
            start = self.moment(FUTURE_START, 150).replace(minute=0, second=0)
            state = rng.choice(("open", "open", "draft"))
        else:
            start = self.moment(EPOCH + timedelta(days=30), HISTORY_DAYS - 30)
            start = start.replace(minute=rng.choice((0, 30)), second=0)
            state = "cancelled" if rng.random() < 0.05 else "closed"
        duration = rng.choice((0.5, 1.0, 1.0, 1.5, 2.0))
        author = rng.choice(people)
        crowd = rng.sample(people, min(len(people), rng.randint(2, 6)))
        participants = sorted({author, *crowd})
        created = start - timedelta(days=rng.randint(1, 14))
        items = [
            self.make_agenda_item(position, people, created, start, with_outcomes=not upcoming)
            for position in range(1, rng.randint(2, 6) + 1)
        ]
        finished = start + timedelta(hours=duration + rng.uniform(0.1, 30))
        return {
            "id": meeting_id,
            "project": project["id"],
            "title": self.text.fill(rng.choice(vocab.MEETING_TITLES)),
            "location": rng.choice(vocab.LOCATIONS),
            "startTime": stamp(start),
            "duration": duration,
            "state": state,
            "author": author,
            "participants": participants,
            "createdAt": stamp(created),
            "updatedAt": stamp(created if upcoming else finished.replace(microsecond=0)),
            "agendaItems": items,
        }

    def make_agenda_item(
        self,
        position: int,
        people: list[int],
        created: datetime,
        start: datetime,
        *,
        with_outcomes: bool,
    ) -> dict[str, Any]:
        rng = self.rng
        item_id = self.next_item_id
        self.next_item_id += 1
        outcomes = []
        if with_outcomes and rng.random() < 0.45:
            for _ in range(rng.randint(1, 2)):
                notes = self.text.fill(rng.choice(vocab.OUTCOME_NOTES))
                outcomes.append(
                    {
                        "id": self.next_outcome_id,
                        "kind": "decision" if notes.startswith("Decision") else "information",
                        "notes": notes,
                        "author": rng.choice(people),
                        "createdAt": stamp(start + timedelta(minutes=10 * position)),
                        "updatedAt": stamp(start + timedelta(minutes=10 * position + 5)),
                    }
                )
                self.next_outcome_id += 1
        return {
            "id": item_id,
            "title": self.text.fill(rng.choice(vocab.AGENDA_TITLES)),
            "notes": self.text.agenda_notes(),
            "position": position,
            "durationInMinutes": rng.choice((5, 10, 15, 20, 30)),
            "author": rng.choice(people),
            "presenter": rng.choice(people) if rng.random() < 0.6 else None,
            "createdAt": stamp(created),
            "updatedAt": stamp(created + timedelta(hours=rng.randint(1, 48))),
            "outcomes": outcomes,
        }

    def sections(self) -> Iterator[tuple[str, Any]]:
        """The corpus's keys in file order with their values; the record lists are
        iterators that generate each record when it is taken (for streaming writes)."""
        users = self.make_users()
        projects = self.make_projects()
        statuses = self.make_statuses()
        yield "version", 1
        yield "api_keys", {ADMIN_KEY: 1, **{f"key-{u['login']}": u["id"] for u in users[1:]}}
        yield "users", users
        yield "projects", projects
        yield "statuses", statuses
        yield "types", [{"id": i, "name": n} for i, n in enumerate(vocab.TYPES, start=1)]
        yield "work_packages", map(self.make_work_package, range(1, self.size.work_packages + 1))
        yield "wiki_pages", map(self.make_wiki_page, self.wiki_ids())
        yield "meetings", map(self.make_meeting, range(1, self.size.meetings + 1))
        yield from publication_sections(self)

    def corpus(self) -> dict[str, Any]:
        return {
            key: list(value) if isinstance(value, map) else value for key, value in self.sections()
        }


def generate_corpus(
    size: CorpusSize, seed: int = 0, *, filler: FillerFactory = TextFiller
) -> dict[str, Any]:
    """A corpus dict (format version 1); the same size and seed give the same corpus.

    *filler* writes the text of every record (benchmarks pass one with a larger vocabulary).
    """
    was_enabled = gc.isenabled()
    gc.disable()  # nothing generated is garbage; collections would only rescan it
    try:
        return _Generator(size, seed, filler).corpus()
    finally:
        if was_enabled:
            gc.enable()


def corpus_bytes(corpus: dict[str, Any]) -> bytes:
    """The canonical file form of a corpus: UTF-8 JSON, one record per line per kind."""
    lines = ["{"]
    keys = list(corpus)
    for position, key in enumerate(keys):
        value = corpus[key]
        tail = "," if position < len(keys) - 1 else ""
        if isinstance(value, list) and value:
            lines.append(f"  {json.dumps(key)}: [")
            rows = [json.dumps(item, ensure_ascii=False) for item in value]
            lines.append(",\n".join(f"    {row}" for row in rows))
            lines.append(f"  ]{tail}")
        else:
            lines.append(f"  {json.dumps(key)}: {json.dumps(value, ensure_ascii=False)}{tail}")
    lines.append("}")
    return ("\n".join(lines) + "\n").encode("utf-8")


def write_corpus(corpus: dict[str, Any], path: Path) -> int:
    """Write *corpus* to *path* in canonical form; returns the number of bytes written."""
    data = corpus_bytes(corpus)
    path.write_bytes(data)
    return len(data)


def write_generated_corpus(
    size: CorpusSize, path: Path, seed: int = 0, *, filler: FillerFactory = TextFiller
) -> int:
    """Generate a corpus and write it record by record: the bytes of ``write_corpus(
    generate_corpus(size, seed), path)`` without holding the corpus in memory. Returns the
    number of bytes written."""
    generator = _Generator(size, seed, filler)
    with path.open("w", encoding="utf-8", newline="\n") as out:
        out.write("{")
        for position, (key, value) in enumerate(generator.sections()):
            if position:
                out.write(",")
            rows = iter(value) if isinstance(value, list | map) else None
            first = next(rows, None) if rows is not None else None
            if rows is None or first is None:
                whole = [] if isinstance(value, map) else value
                out.write(f"\n  {json.dumps(key)}: {json.dumps(whole, ensure_ascii=False)}")
                continue
            out.write(f"\n  {json.dumps(key)}: [\n    {json.dumps(first, ensure_ascii=False)}")
            for row in rows:
                out.write(f",\n    {json.dumps(row, ensure_ascii=False)}")
            out.write("\n  ]")
        out.write("\n}\n")
    return path.stat().st_size


def with_publications(
    size: CorpusSize,
    *,
    news: int | None = None,
    documents: int | None = None,
    versions: int | None = None,
    posts: int | None = None,
    attachments: int | None = None,
) -> CorpusSize:
    """*size* with the optional kinds: counts given, or a few per project and an
    attachment on about one work package or wiki page in ten."""
    projects = size.projects
    return replace(
        size,
        news=3 * projects if news is None else news,
        documents=2 * projects if documents is None else documents,
        versions=2 * projects if versions is None else versions,
        posts=2 * projects if posts is None else posts,
        attachments=(size.work_packages + size.wiki_pages) // 10
        if attachments is None
        else attachments,
    )
