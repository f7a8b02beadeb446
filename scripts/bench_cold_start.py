"""Cold start of the command line as whole processes: `opindex --help` and `opindex search`.

python scripts/bench_cold_start.py                       # Zipf corpus, 10k documents
python scripts/bench_cold_start.py --documents 1000 --runs 5

Each command runs --runs times (after one untimed run that warms the file cache) as a
fresh process of the installed ``opindex`` console script; the median wall time is the
figure (targets: --help <= 0.3 s, search --json <= 0.5 s), with the CPU time of the child
(user + system) beside it. ``opindex search --json`` searches a tenant built from the
corpus (cached under bench-results/tenants/) through a configuration file whose tenant
counts as fresh, so the answer comes from the index (checked in the printed envelope).
The package's bytecode is compiled first, as an install compiles it: with
``PYTHONDONTWRITEBYTECODE`` set, every run would otherwise compile each module from
source (0.1 s more at 10k). A search within an hour of another trusts the files that
one verified (DECISIONS D158), so the first search of the hour is measured apart: before
each of its runs the verification record is removed, and every file is hashed again.
Writes bench-results/cold_start.json.
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import opindex
from evallib.corpora import ensure_corpus
from evallib.results_io import RESULTS, context, write_result
from evallib.tenant_builds import build_tenant
from evallib.zipf_corpus import VOCABULARIES
from opindex.index.verification_record import RECORD_DIRECTORY
from opindex.sandbox.corpus_check import load_corpus_file
from opindex.sandbox.corpus_gen import ADMIN_KEY
from opindex.sync import index_directory

DOCUMENTS_PER_WORK_PACKAGE = 1.09  # CorpusSize.proportional adds wiki pages and meetings
TARGETS_S = {"help": 0.3, "search": 0.5, "first_search": 0.5}
TEN_YEARS_S = 10 * 365 * 86400


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--documents", type=int, default=10_000)
    parser.add_argument("--vocabulary", choices=VOCABULARIES, default="zipf")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--query", help="default: three words of a work package's subject")
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    return args


def opindex_command() -> list[str]:
    """The console script beside this interpreter (what users run), else ``-m opindex``."""
    script = Path(sys.executable).parent / "opindex"
    return [str(script)] if script.is_file() else [sys.executable, "-m", "opindex"]


def timed(
    command: list[str], env: dict[str, str], before_run: Callable[[], None] | None = None
) -> tuple[float, float, str]:
    """Wall seconds, child CPU seconds and stdout of one run (which must succeed), after
    *before_run* (untimed)."""
    if before_run is not None:
        before_run()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed ({done.returncode}): {done.stderr[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done.stdout


def measure(
    command: list[str],
    runs: int,
    env: dict[str, str],
    before_run: Callable[[], None] | None = None,
) -> dict[str, Any]:
    timed(command, env)  # warm the file cache
    samples = [timed(command, env, before_run) for _ in range(runs)]
    walls, cpus = [s[0] for s in samples], [s[1] for s in samples]
    return {
        "command": command,
        "wall_s": walls,
        "cpu_s": cpus,
        "median_wall_s": statistics.median(walls),
        "median_cpu_s": statistics.median(cpus),
        "stdout": samples[-1][2],
    }


def write_config(directory: Path, data_dir: Path, tenant: str) -> Path:
    """A configuration with one tenant that stays fresh (the index answers ``auto``)."""
    path = directory / "opindex.toml"
    path.write_text(
        f"data_dir = {json.dumps(str(data_dir))}\n\n[[tenants]]\nname = {json.dumps(tenant)}\n"
        'base_url = "http://sandbox.invalid"\n'
        f"api_key = {json.dumps(ADMIN_KEY)}\nmax_staleness_seconds = {TEN_YEARS_S}\n",
        encoding="utf-8",
    )
    path.chmod(0o600)
    return path


def default_query(corpus: Path) -> str:
    """Three words of the subject of the middle work package (deterministic)."""
    work_packages = load_corpus_file(corpus).work_packages
    return " ".join(work_packages[len(work_packages) // 2].subject.split()[:3])


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    work_packages = round(args.documents / DOCUMENTS_PER_WORK_PACKAGE)
    corpus = ensure_corpus(work_packages, args.seed, RESULTS / "corpora", args.vocabulary)
    build = build_tenant(corpus, RESULTS / "tenants")
    query = args.query or default_query(corpus)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPINDEX_", "OPENPROJECT_"))}
    base = opindex_command()
    compileall.compile_dir(Path(opindex.__file__).parent, quiet=1)  # as an install does
    with tempfile.TemporaryDirectory(prefix="opindex-cold-") as workdir:
        config = write_config(Path(workdir), build.tenant.data_dir, build.tenant.tenant)
        env["HOME"] = workdir  # no stray ./opindex.toml or user configuration
        search = [*base, "search", "--config", str(config), "--kind", "work_packages", "--json"]
        generations = index_directory(build.tenant.data_dir, build.tenant.tenant)
        live = generations.current()
        if live is None:
            raise SystemExit(f"{build.tenant.data_dir}: the tenant has no index")
        record = generations.generation_path(live) / RECORD_DIRECTORY

        def forget_verification() -> None:
            shutil.rmtree(record, ignore_errors=True)

        results = {
            "help": measure([*base, "--help"], args.runs, env),
            "first_search": measure([*search, query], args.runs, env, forget_verification),
            "search": measure([*search, query], args.runs, env),
        }
    envelope = json.loads(results["search"].pop("stdout"))
    results["help"].pop("stdout")
    results["first_search"].pop("stdout")
    if envelope["meta"]["source"] != "index":
        raise SystemExit(f"the search was answered by {envelope['meta']['source']}, not the index")
    documents = sum(build.tenant.sync["documents"].values())
    print(f"Cold start, median of {args.runs} runs; load average {os.getloadavg()[0]:.2f}")
    print("command                             median wall  median CPU  target   verdict")
    labels = (
        ("help", "opindex --help"),
        ("first_search", "search --json, first of the hour"),
        ("search", "opindex search --json"),
    )
    for name, label in labels:
        r, target = results[name], TARGETS_S[name]
        verdict = "met" if r["median_wall_s"] <= target else "missed"
        print(
            f"{label:<34}  {r['median_wall_s']:9.3f} s  {r['median_cpu_s']:8.3f} s  "
            f"<= {target:g} s  {verdict}"
        )
    print(f"search: {query!r} on {documents:,} documents, {envelope['meta']['total']} hits")
    write_result(
        "cold_start",
        {
            "context": context(),
            "documents": documents,
            "vocabulary": args.vocabulary,
            "query": query,
            "runs": args.runs,
            "targets_s": TARGETS_S,
            "results": results,
            "hits": envelope["meta"]["total"],
        },
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
