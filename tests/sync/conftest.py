"""Shared fixtures for the syncer tests: a small corpus, tenants, clocks, expectations."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from tests.support.sandbox import (
    CLOSED_STATUS,
    MEMBER_KEY,
    CorpusBuilder,
    SandboxHandle,
    running_sandbox,
)

from opindex.config import Secret, TenantConfig
from opindex.index import TenantIndex
from opindex.sync import index_directory

KIND_TABLES = {"work_package": "work_packages", "wiki_page": "wiki_pages", "meeting": "meetings"}
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


def user_of(corpus: dict[str, Any], key: str) -> int:
    """The user id an API key belongs to."""
    return int(corpus["api_keys"][key])


@dataclass
class Clock:
    """An injectable clock: real time plus an offset the test can move forward."""

    offset: timedelta = field(default_factory=timedelta)

    def __call__(self) -> datetime:
        return datetime.now(UTC) + self.offset

    def advance(self, **delta: float) -> None:
        self.offset += timedelta(**delta)


def make_tenant(sandbox: SandboxHandle, key: str = MEMBER_KEY, **settings: Any) -> TenantConfig:
    """A tenant named ``acme`` on the sandbox with ``key``."""
    name = settings.pop("name", "acme")
    return TenantConfig(name=name, base_url=sandbox.base_url, api_key=Secret(key), **settings)


def indexed_ids(data_dir: Path, tenant: str, kind: str) -> list[int]:
    """Every id of ``kind`` in the tenant's live index (duplicates would show twice)."""
    with TenantIndex(index_directory(data_dir, tenant)) as index:
        return index.all_ids(kind)


@pytest.fixture
def corpus() -> dict[str, Any]:
    return sample_corpus()


@pytest.fixture
def sandbox(corpus: dict[str, Any]) -> Iterator[SandboxHandle]:
    """A sandbox with the wiki list endpoint: one request lists every wiki page, which
    keeps tests that are not about wiki discovery fast."""
    with running_sandbox(corpus, wiki_list=True) as handle:
        yield handle


@pytest.fixture
def probing_sandbox(corpus: dict[str, Any]) -> Iterator[SandboxHandle]:
    """A sandbox shaped like released servers: wiki pages are found by id probing."""
    with running_sandbox(corpus) as handle:
        yield handle


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    return tmp_path / "data"


TenantFactory = Callable[..., TenantConfig]


def write_config(
    directory: Path, tenants: list[tuple[str, SandboxHandle, str]], **settings: Any
) -> Path:
    """An ``opindex.toml`` with ``data_dir = "data"`` and one tenant per (name, sandbox,
    key); ``settings`` are added to every tenant. Readable by the owner only."""
    lines = ['data_dir = "data"']
    for name, sandbox, key in tenants:
        lines += [
            "",
            "[[tenants]]",
            f'name = "{name}"',
            f'base_url = "{sandbox.base_url}"',
            f'api_key = "{key}"',
        ]
        lines += [f"{setting} = {value}" for setting, value in settings.items()]
    path = directory / "opindex.toml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    path.chmod(0o600)
    return path
