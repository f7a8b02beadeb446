"""Kill syncs at random moments and at every commit boundary; every next sync must recover.

python scripts/kill_loop.py --work-packages 8000 --random 30
python scripts/kill_loop.py --work-packages 1000 --random 3 --scenarios first rebuild

Generates a corpus (``opindex.sandbox.corpus_gen``), serves it with ``opindex sandbox``
on 127.0.0.1, syncs it once as the administrator (the reference: which records the
corpus makes visible, and which commit boundaries a run passes, from the test seam's
log, ``opindex.kill_points``), then, per scenario:

- ``first``: a first full sync (resumable, checkpointed) into an empty data directory;
- ``rebuild``: ``opindex rebuild`` of a synced tenant;
- ``incremental``: ``opindex sync`` of a synced tenant after a change on the server;

kills the run with SIGKILL at commit boundaries (``OPINDEX_TEST_KILL_AT``; by default
the second and the last time each boundary is reached, ``--all-occurrences`` for every
time) and, for ``first``, at ``--random`` random moments. After each kill one plain
``opindex sync`` must exit 0, the index must hold exactly the reference records (no
duplicates), ``opindex status --json`` must be fresh with no problem and no checkpoint,
and what ``status`` said before it about an unfinished sync (resumed or discarded) must
be what the sync did. Prints one row per kill and a summary; exit status 1 if any failed.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, Literal

import httpx

from opindex.child_process import announced_child
from opindex.index import TenantIndex
from opindex.kill_points import KILL_AT_ENV, KILL_LOG_ENV
from opindex.sandbox.corpus_gen import ADMIN_KEY, CorpusSize, generate_corpus, write_corpus
from opindex.sync import index_directory

Scenario = Literal["first", "rebuild", "incremental"]
SCENARIOS: tuple[Scenario, ...] = ("first", "rebuild", "incremental")
Selection = Literal["one", "ends", "all"]
KINDS = ("work_package", "wiki_page", "meeting")
TENANT = "acme"
RUN_TIMEOUT = 900.0
DISCARDED = "not resuming the unfinished"
"""What the sync logs when it drops a checkpoint instead of continuing it."""


@dataclass
class Outcome:
    """One kill and the sync after it."""

    scenario: Scenario
    kill: str
    victim_exit: int
    recovery_exit: int | None = None
    resumed: bool | None = None
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def choose(occurrences: Sequence[str], selection: Selection) -> list[str]:
    """Which of a run's boundary occurrences (``"<boundary>:<n>"``, in order) to kill at:
    every one, or per boundary the second time it is reached (the first when it is
    reached once) and, for ``ends``, also the last time."""
    if selection == "all":
        return list(occurrences)
    counts: dict[str, int] = {}
    for occurrence in occurrences:
        name = occurrence.partition(":")[0]
        counts[name] = counts.get(name, 0) + 1
    chosen: list[str] = []
    for name, count in counts.items():
        picks = {min(2, count)} | ({count} if selection == "ends" else set())
        chosen += [f"{name}:{n}" for n in sorted(picks)]
    return chosen


class KillLoop:
    """A sandbox serving the corpus, a working directory, and the reference sync."""

    def __init__(self, workdir: Path, base_url: str, corpus: dict[str, Any]) -> None:
        self.workdir = workdir
        self.base_url = base_url
        self.corpus = corpus
        self.expected: dict[str, set[int]] = {}
        self.occurrences: dict[Scenario, list[str]] = {}
        self.seconds: dict[Scenario, float] = {}
        self._rounds = 0
        self._added = 0

    # --- processes ----------------------------------------------------------------------

    def config(self, data_dir: Path) -> Path:
        path = data_dir.with_suffix(".toml")
        path.write_text(
            f'data_dir = "{data_dir}"\n\n[[tenants]]\nname = "{TENANT}"\n'
            f'base_url = "{self.base_url}"\napi_key = "{ADMIN_KEY}"\n',
            encoding="utf-8",
        )
        path.chmod(0o600)
        return path

    def run(
        self, data_dir: Path, *args: str, env: dict[str, str] | None = None
    ) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "opindex", *args, "--config", str(self.config(data_dir))]
        return subprocess.run(
            command, capture_output=True, text=True, timeout=RUN_TIMEOUT, env=_env(env)
        )

    def killed_after(self, data_dir: Path, args: Sequence[str], seconds: float) -> int:
        """Run ``opindex ARGS`` and SIGKILL it after *seconds* (if still running)."""
        command = [sys.executable, "-m", "opindex", *args, "--config", str(self.config(data_dir))]
        victim = subprocess.Popen(
            command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=_env(None)
        )
        try:
            return victim.wait(timeout=seconds)
        except subprocess.TimeoutExpired:
            victim.send_signal(signal.SIGKILL)
            return victim.wait(timeout=60)

    # --- data directories -----------------------------------------------------------------

    def fresh_dir(self, label: str) -> Path:
        self._rounds += 1
        path = self.workdir / f"{self._rounds:03d}-{label}"
        path.mkdir()
        return path / "data"

    def copy_of_base(self, label: str) -> Path:
        data_dir = self.fresh_dir(label)
        shutil.copytree(self.workdir / "base" / "data", data_dir)
        return data_dir

    def prepare(self, scenario: Scenario, label: str) -> tuple[Path, list[str]]:
        """A data directory and the command for one run of *scenario*."""
        if scenario == "first":
            return self.fresh_dir(label), ["sync"]
        data_dir = self.copy_of_base(label)
        if scenario == "rebuild":
            return data_dir, ["rebuild", "--tenant", TENANT]
        self.change_server()
        return data_dir, ["sync"]

    def change_server(self) -> None:
        """One work package added and one edited on the server (an incremental run's work)."""
        self._added += 1
        new_id = 900_000 + self._added
        with httpx.Client(base_url=self.base_url, timeout=30) as control:
            for record in (
                {"id": new_id, "project": 1, "subject": f"Added {self._added}"},
                {"id": min(self.expected["work_package"]), "project": 1, "subject": "Edited"},
            ):
                body = {"type": 1, "status": 1, "author": 1, **record}
                control.post(
                    "/_sandbox/mutate",
                    json={"op": "upsert", "kind": "work_packages", "record": body},
                ).raise_for_status()
        self.expected["work_package"].add(new_id)

    # --- checks ---------------------------------------------------------------------------

    def indexed(self, data_dir: Path) -> dict[str, list[int]]:
        with TenantIndex(index_directory(data_dir, TENANT)) as index:
            return {kind: index.all_ids(kind) for kind in KINDS}

    def status(self, data_dir: Path) -> dict[str, Any]:
        done = self.run(data_dir, "status", "--json")
        if done.returncode != 0:
            return {"status_exit": done.returncode, "problems": [done.stderr.strip()]}
        tenants: list[dict[str, Any]] = json.loads(done.stdout)["tenants"]
        return tenants[0]

    def reference(self, scenarios: Sequence[Scenario] = SCENARIOS) -> None:
        """Sync once into ``base`` (the records to expect) and note the boundaries and
        duration of each of *scenarios* from logged runs."""
        base = self.workdir / "base" / "data"
        base.parent.mkdir()
        self.occurrences["first"], self.seconds["first"] = self._logged(base, ["sync"])
        self.expected = {kind: set(ids) for kind, ids in self.indexed(base).items()}
        listed = {int(wp["id"]) for wp in self.corpus["work_packages"]}
        if self.expected["work_package"] != listed:
            raise SystemExit("the reference sync does not hold every work package of the corpus")
        for scenario in scenarios:
            if scenario != "first":
                data_dir, command = self.prepare(scenario, f"log-{scenario}")
                found = self._logged(data_dir, command)
                self.occurrences[scenario], self.seconds[scenario] = found

    def _logged(self, data_dir: Path, command: list[str]) -> tuple[list[str], float]:
        log = data_dir.parent / "boundaries.log"
        started = time.monotonic()
        done = self.run(data_dir, *command, env={KILL_LOG_ENV: str(log)})
        seconds = time.monotonic() - started
        if done.returncode != 0:
            raise SystemExit(f"the logged run {command} exited {done.returncode}: {done.stderr}")
        return log.read_text(encoding="utf-8").split(), seconds

    def recover(self, outcome: Outcome, data_dir: Path) -> Outcome:
        """Run the sync after a kill and check everything it must leave behind."""
        before = self.status(data_dir)
        checkpoint = before.get("full_sync_checkpoint")
        done = self.run(data_dir, "sync")
        outcome.recovery_exit = done.returncode
        problems = outcome.problems
        if done.returncode != 0:
            problems.append(f"sync exited {done.returncode}: {done.stderr.strip()[-300:]}")
            return outcome
        if checkpoint is not None:
            outcome.resumed = DISCARDED not in done.stderr
            if checkpoint.get("next_sync_resumes") != outcome.resumed:
                problems.append(f"status said {checkpoint}, the sync resumed={outcome.resumed}")
        indexed = self.indexed(data_dir)
        for kind in KINDS:
            ids = indexed[kind]
            if len(ids) != len(set(ids)):
                problems.append(f"duplicate {kind} records")
            if set(ids) != self.expected[kind]:
                missing = len(self.expected[kind] - set(ids))
                extra = len(set(ids) - self.expected[kind])
                problems.append(f"{kind}: {missing} missing, {extra} not on the server")
        after = self.status(data_dir)
        documents = after.get("documents", {})
        if after.get("state") != "fresh" or after.get("problems"):
            problems.append(f"status {after.get('state')}: {after.get('problems')}")
        if after.get("full_sync_checkpoint") is not None:
            problems.append("status still shows an unfinished sync")
        if documents.get("work_packages") != len(self.expected["work_package"]):
            problems.append(f"status counts {documents.get('work_packages')} work packages")
        return outcome

    # --- rounds ---------------------------------------------------------------------------

    def kill_at(self, scenario: Scenario, occurrence: str) -> Outcome:
        data_dir, command = self.prepare(scenario, occurrence.replace(":", "-"))
        done = self.run(data_dir, *command, env={KILL_AT_ENV: occurrence})
        outcome = Outcome(scenario, occurrence, done.returncode)
        if done.returncode != -signal.SIGKILL:
            outcome.problems.append(f"the run was not killed (exit {done.returncode})")
        return self.recover(outcome, data_dir)

    def kill_after(self, scenario: Scenario, seconds: float) -> Outcome:
        data_dir, command = self.prepare(scenario, f"t{seconds:.2f}")
        code = self.killed_after(data_dir, command, seconds)
        return self.recover(Outcome(scenario, f"at {seconds:.2f} s", code), data_dir)


def _env(extra: dict[str, str] | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in (KILL_AT_ENV, KILL_LOG_ENV)}
    env["PYTHONUNBUFFERED"] = "1"
    env.update(extra or {})
    return env


@contextmanager
def kill_loop(
    workdir: Path, work_packages: int, seed: int, scenarios: Sequence[Scenario] = SCENARIOS
) -> Iterator[KillLoop]:
    """A KillLoop over a generated corpus of *work_packages* served by a sandbox, its
    reference runs for *scenarios* done."""
    corpus = generate_corpus(CorpusSize.proportional(work_packages), seed)
    corpus_path = workdir / "corpus.json"
    write_corpus(corpus, corpus_path)
    argv = [sys.executable, "-m", "opindex", "sandbox", "--corpus", str(corpus_path)]
    argv += ["--port", "0", "--wiki-list"]
    with announced_child(argv, "sandbox listening on ", startup_seconds=120) as child:
        if child.announcement is None:
            raise SystemExit(f"the sandbox did not start: {child.first_line!r}")
        loop = KillLoop(workdir, child.announcement.strip(), corpus)
        loop.reference(scenarios)
        yield loop


def run_rounds(
    loop: KillLoop,
    scenarios: Sequence[Scenario],
    selection: Selection,
    randoms: int,
    rng: random.Random,
    report: Callable[[Outcome], None] = lambda outcome: None,
    deadline: float | None = None,
) -> list[Outcome]:
    """Every chosen boundary kill of each scenario, then *randoms* random-moment kills of
    a first full sync (uniform over its reference duration); no round starts after
    *deadline* (``time.monotonic()``)."""
    rounds: list[Callable[[], Outcome]] = [
        partial(loop.kill_at, scenario, occurrence)
        for scenario in scenarios
        for occurrence in choose(loop.occurrences[scenario], selection)
    ]
    moments = [rng.uniform(0.5, loop.seconds["first"]) for _ in range(randoms)]
    rounds += [partial(loop.kill_after, "first", moment) for moment in moments]
    outcomes: list[Outcome] = []
    for one_round in rounds:
        if deadline is not None and time.monotonic() > deadline:
            break
        outcomes.append(one_round())
        report(outcomes[-1])
    return outcomes


def row(outcome: Outcome) -> str:
    resumed = {None: "-", True: "resumed", False: "discarded"}[outcome.resumed]
    verdict = "ok" if outcome.ok else "FAIL: " + "; ".join(outcome.problems)
    return (
        f"{outcome.scenario:<12} {outcome.kill:<20} {outcome.victim_exit:>6} "
        f"{outcome.recovery_exit!s:>6} {resumed:<10} {verdict}"
    )


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--work-packages", type=int, default=8000, metavar="N")
    parser.add_argument("--random", type=int, default=30, metavar="N", help="random kills")
    parser.add_argument("--seed", type=int, default=None, help="default: a random one")
    parser.add_argument("--scenarios", nargs="+", choices=SCENARIOS, default=list(SCENARIOS))
    parser.add_argument("--all-occurrences", action="store_true", help="kill at every one")
    parser.add_argument("--keep", action="store_true", help="keep the working directory")
    parser.add_argument(
        "--max-minutes", type=float, default=180.0, help="start no kill after this long"
    )
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 30)
    workdir = Path(tempfile.mkdtemp(prefix="opindex-kill-loop-"))
    started = time.monotonic()
    print(f"kill loop: {args.work_packages} work packages, seed {seed}, in {workdir}")
    try:
        with kill_loop(workdir, args.work_packages, seed, args.scenarios) as loop:
            for scenario in args.scenarios:
                print(
                    f"{scenario}: {len(loop.occurrences[scenario])} boundaries reached in "
                    f"{loop.seconds[scenario]:.1f} s"
                )
            print(f"{'scenario':<12} {'kill':<20} {'killed':>6} {'next':>6} {'checkpoint':<10}")
            selection: Selection = "all" if args.all_occurrences else "ends"
            planned = args.random + sum(
                len(choose(loop.occurrences[scenario], selection)) for scenario in args.scenarios
            )
            outcomes = run_rounds(
                loop,
                args.scenarios,
                selection,
                args.random,
                random.Random(seed),
                lambda outcome: print(row(outcome), flush=True),
                started + args.max_minutes * 60,
            )
    finally:
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)
    failed = [outcome for outcome in outcomes if not outcome.ok]
    recovered = sum(outcome.recovery_exit == 0 for outcome in outcomes)
    print(
        f"summary: {len(outcomes)} of {planned} planned kills, "
        f"{recovered} following syncs exited 0, "
        f"{len(outcomes) - len(failed)} matched the corpus and status, {len(failed)} failed "
        f"({time.monotonic() - started:.0f} s, seed {seed})"
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
