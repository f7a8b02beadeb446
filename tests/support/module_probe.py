"""What a command imports: ``opindex ARGV`` run in a fresh interpreter, then its ``sys.modules``."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass

_PROBE = """
import json, sys
from opindex.cli import main
try:
    code = main({argv!r})
except SystemExit as stop:
    code = stop.code
print("MODULES " + json.dumps([code, sorted(sys.modules)]))
"""


@dataclass(frozen=True)
class ProbedRun:
    """What the command printed, its exit code (``--help`` exits through SystemExit: 0)
    and every module the interpreter had imported when it returned."""

    printed: str
    code: int | None
    modules: set[str]
    stderr: str


def imported_by(argv: list[str]) -> ProbedRun:
    """Run ``opindex`` with *argv* in a fresh interpreter (``main``, as the console
    script calls it) and report what it printed and imported."""
    done = subprocess.run(
        [sys.executable, "-c", _PROBE.format(argv=argv)],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    printed, _, tail = done.stdout.rpartition("MODULES ")
    code, modules = json.loads(tail)
    return ProbedRun(printed, code, set(modules), done.stderr)
