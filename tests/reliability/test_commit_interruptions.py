"""SIGKILL between two commits never wedges a tenant: the next ``opindex sync`` recovers.

Real ``python -m opindex`` processes against a real sandbox, killed by the test seam
``OPINDEX_TEST_KILL_AT`` (``opindex.kill_points``) exactly after a chosen commit
boundary (Tantivy commit, analysis commit, checksums, state transaction, CURRENT
switch), or at random moments; the harness is ``scripts/kill_loop.py`` (which runs the
same at 8k work packages). After each kill one plain ``opindex sync`` must exit 0, hold
exactly the corpus's records, and leave ``status`` fresh with no unfinished sync; what
``status`` said before it (resume or discard) must be what it did.
"""

from __future__ import annotations

import random
import re
import signal
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from scripts.kill_loop import KillLoop, Outcome, choose, kill_loop, row, run_rounds

from opindex.errors import ConfigError
from opindex.kill_points import KILL_AT_ENV, parse_kill_at

WORK_PACKAGES = 600  # two commits of the fresh generation (checkpoints every 500), then a copy
ACTIVITIES = re.compile(r"^/api/v3/work_packages/(\d+)/activities$")


def _failures(outcomes: list[Outcome]) -> str:
    return "\n".join(row(outcome) for outcome in outcomes)


@pytest.fixture
def first_sync_loop(tmp_path: Path) -> Iterator[KillLoop]:
    with kill_loop(tmp_path, WORK_PACKAGES, seed=11, scenarios=("first",)) as loop:
        yield loop


def _activity_reads(loop: KillLoop) -> int:
    with httpx.Client(base_url=loop.base_url, timeout=30) as control:
        by_path = control.get("/_sandbox/stats").raise_for_status().json()["by_path"]
    return sum(count for path, count in by_path.items() if ACTIVITIES.match(path))


def _reset_stats(loop: KillLoop) -> None:
    with httpx.Client(base_url=loop.base_url, timeout=30) as control:
        control.post("/_sandbox/stats/reset").raise_for_status()


def test_kill_points_parse_and_choose_boundaries() -> None:
    assert parse_kill_at("tantivy-commit:2") == ("tantivy-commit", 2)
    for bad in ("tantivy-commit", "tantivy-commit:0", "nowhere:1", "checksums:x", ""):
        with pytest.raises(ConfigError, match=KILL_AT_ENV):
            parse_kill_at(bad)
    run = ["state-commit:1", "tantivy-commit:1", "state-commit:2", "tantivy-commit:2"]
    run += ["current-switch:1", "state-commit:3"]
    assert choose(run, "one") == ["state-commit:2", "tantivy-commit:2", "current-switch:1"]
    assert choose(run, "ends") == [
        "state-commit:2",
        "state-commit:3",
        "tantivy-commit:2",
        "current-switch:1",
    ]
    assert choose(run, "all") == run


@pytest.mark.slow
def test_a_first_full_sync_killed_at_every_commit_boundary_recovers(
    first_sync_loop: KillLoop,
) -> None:
    loop = first_sync_loop
    names = {occurrence.partition(":")[0] for occurrence in loop.occurrences["first"]}
    assert names == {
        "state-commit",
        "tantivy-commit",
        "analysis-commit",
        "checksums",
        "current-switch",
    }
    outcomes = run_rounds(loop, ("first",), "one", 2, random.Random(5))
    assert all(outcome.ok for outcome in outcomes), _failures(outcomes)
    assert all(o.victim_exit == -signal.SIGKILL for o in outcomes[:-2]), _failures(outcomes)
    # The wedge of issue 36: Tantivy committed the fresh generation, its analysis not.
    wedge = next(o for o in outcomes if o.kill == "tantivy-commit:2")
    assert wedge.resumed is False, _failures(outcomes)


@pytest.mark.slow
def test_a_rebuild_killed_at_every_commit_boundary_recovers(tmp_path: Path) -> None:
    with kill_loop(tmp_path, WORK_PACKAGES, seed=12, scenarios=("rebuild",)) as loop:
        outcomes = run_rounds(loop, ("rebuild",), "one", 0, random.Random(0))
    assert all(outcome.ok for outcome in outcomes), _failures(outcomes)
    assert len(outcomes) == 5, _failures(outcomes)  # one kill per boundary
    # Killed between the two commits of the new generation: the old one serves meanwhile,
    # and the next sync discards the half-committed one instead of failing on it.
    wedge = next(o for o in outcomes if o.kill == "tantivy-commit:2")
    assert wedge.resumed is False, _failures(outcomes)


@pytest.mark.slow
def test_an_incremental_sync_killed_at_every_commit_boundary_recovers(tmp_path: Path) -> None:
    with kill_loop(tmp_path, WORK_PACKAGES, seed=13, scenarios=("incremental",)) as loop:
        names = {o.partition(":")[0] for o in loop.occurrences["incremental"]}
        assert names == {"tantivy-commit", "analysis-commit", "checksums", "state-commit"}
        outcomes = run_rounds(loop, ("incremental",), "ends", 0, random.Random(0))
    assert all(outcome.ok for outcome in outcomes), _failures(outcomes)
    assert all(o.victim_exit == -signal.SIGKILL for o in outcomes), _failures(outcomes)


@pytest.mark.slow
def test_status_tells_whether_the_next_sync_resumes_and_rebuild_starts_over(
    first_sync_loop: KillLoop,
) -> None:
    loop = first_sync_loop
    # Killed between Tantivy's and the analysis store's commit: the checkpoint is useless.
    wedged = loop.fresh_dir("wedged")
    assert loop.run(wedged, "sync", env={KILL_AT_ENV: "tantivy-commit:2"}).returncode == -9
    said = loop.run(wedged, "status").stdout
    assert "unfinished full sync" in said and "the next sync discards it" in said, said
    assert "the next sync resumes it" not in said, said
    assert loop.run(wedged, "sync").returncode == 0

    # Killed right after a checkpoint was stored: status promises to resume it, a plain
    # sync would, but `rebuild` starts over and reads every work package again.
    occurrences = loop.occurrences["first"]
    stored = occurrences[occurrences.index("checksums:1") + 1]
    assert stored.startswith("state-commit:"), occurrences
    checkpointed = loop.fresh_dir("checkpointed")
    assert loop.run(checkpointed, "sync", env={KILL_AT_ENV: stored}).returncode == -9
    said = loop.run(checkpointed, "status").stdout
    assert "the next sync resumes it" in said, said
    _reset_stats(loop)
    rebuilt = loop.run(checkpointed, "rebuild", "--tenant", "acme")
    assert rebuilt.returncode == 0, rebuilt.stderr
    assert "a rebuild starts from scratch" in rebuilt.stderr
    assert _activity_reads(loop) >= len(loop.expected["work_package"])
    outcome = loop.recover(Outcome("first", "rebuild after a checkpoint", -9), checkpointed)
    assert outcome.ok and outcome.resumed is None, row(outcome)
