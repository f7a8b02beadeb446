"""A small two-team OpenProject (sandbox) with configs and processes for the MCP tests.

Bob (MEMBER_KEY) is a member of "Operations" (project 1) only; Carol (OUTSIDER_KEY) of
"Research" (project 4) only; Ada (ADMIN_KEY) sees everything but is no configured tenant.
Each team has a work package, a meeting and a wiki page about a "quarterly budget", so the
same query matches records of both teams and tenant isolation is visible.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tests.support.corpus_builder import ADMIN_KEY, MEMBER_KEY, OUTSIDER_KEY, CorpusBuilder

from opindex.child_process import announced_child

__all__ = ["ADMIN_KEY", "BOB_KEY", "CAROL_KEY"]

BOB_KEY = MEMBER_KEY
CAROL_KEY = OUTSIDER_KEY
OPS, RESEARCH = 1, 4
BOB_WP, CAROL_WP = 11, 21
BOB_MEETING, CAROL_MEETING = 31, 41
BOB_WIKI, CAROL_WIKI = 51, 61
BOB_IDS = {BOB_WP, BOB_MEETING, BOB_WIKI}
CAROL_IDS = {CAROL_WP, CAROL_MEETING, CAROL_WIKI}


def two_team_corpus() -> dict[str, Any]:
    """The corpus described in the module docstring."""
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


def write_config(
    directory: Path,
    base_url: str,
    tenants: dict[str, str],
    *,
    server: dict[str, Any] | None = None,
    **settings: Any,
) -> Path:
    """``opindex.toml`` (mode 0600) with one tenant per name → key, data in ``data``."""
    lines = ['data_dir = "data"']
    if server:
        lines.append("[server]")
        lines += [f"{key} = {_toml(value)}" for key, value in server.items()]
    for name, key in tenants.items():
        lines += ["", "[[tenants]]", f'name = "{name}"', f'base_url = "{base_url}"']
        lines.append(f'api_key = "{key}"')
        lines += [f"{setting} = {_toml(value)}" for setting, value in settings.items()]
    path = directory / "opindex.toml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    path.chmod(0o600)
    return path


def _toml(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    return str(value)


def opindex_argv(*args: str) -> list[str]:
    """``python -m opindex ARGS`` with the interpreter running the tests."""
    return [sys.executable, "-m", "opindex", *args]


def subprocess_env(**extra: str) -> dict[str, str]:
    """The environment for an opindex subprocess (unbuffered; no ambient configuration)."""
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("OPINDEX_CONFIG", "OPENPROJECT_URL", "OPENPROJECT_API_KEY")
    }
    env["PYTHONUNBUFFERED"] = "1"
    env.update(extra)
    return env


SERVE_READY = "opindex MCP server listening on "


@contextmanager
def http_server_process(
    config_path: Path,
    *extra: str,
    stderr_path: Path | None = None,
    verbose: bool = False,
    exit_codes: list[int] | None = None,
) -> Iterator[str]:
    """``opindex serve --transport http --port 0`` in a subprocess; yields the MCP URL.

    Its stderr goes to ``stderr_path`` (default: beside the config file); ``verbose``
    runs it with ``-v`` (every logger at DEBUG). On exit it gets SIGTERM and 30 s to
    stop (then SIGKILL); its exit code is appended to ``exit_codes``."""
    argv = opindex_argv(
        *(["-v"] if verbose else []),
        "serve",
        "--config",
        str(config_path),
        "--transport",
        "http",
        "--port",
        "0",
        *extra,
    )
    stderr_path = stderr_path or config_path.parent / "serve-stderr.txt"
    with (
        stderr_path.open("w", encoding="utf-8") as stderr,
        announced_child(
            argv,
            SERVE_READY,
            startup_seconds=90,
            stop_seconds=30,
            env=subprocess_env(),
            stderr=stderr,
        ) as child,
    ):
        try:
            if child.announcement is None:
                child.stop()
                detail = stderr_path.read_text(encoding="utf-8")
                raise AssertionError(f"serve did not start: {child.first_line!r}; {detail}")
            yield child.announcement
        finally:
            if exit_codes is not None:
                exit_codes.append(child.stop(30))
