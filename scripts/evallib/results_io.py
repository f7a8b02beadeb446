"""Benchmark result files under bench-results/: JSON with the context that produced them."""

from __future__ import annotations

import json
import math
import os
import platform
import shlex
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from evallib.yardstick import yardstick

RESULTS = Path(
    os.environ.get("OPINDEX_BENCH_RESULTS") or Path(__file__).resolve().parents[2] / "bench-results"
)
"""Where benchmarks write results and cache corpora and tenants: ``bench-results/`` of
this checkout, or ``$OPINDEX_BENCH_RESULTS`` (another checkout's, to reuse its tenants)."""


def git_revision() -> str:
    """The short commit hash of the working tree (``unknown`` outside git)."""
    try:
        out = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True
        )
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return out.stdout.strip()


def context(argv: list[str] | None = None) -> dict[str, Any]:
    """When, where and how a benchmark ran."""
    args = sys.argv if argv is None else argv
    script = Path(args[0]).as_posix() if args else "?"
    return {
        "command": " ".join([".venv/bin/python", script, *map(shlex.quote, args[1:])]),
        "generated_at": datetime.now(UTC).replace(microsecond=0).isoformat(),
        "git": git_revision(),
        "cpus": os.cpu_count(),
        "load_average": [round(v, 2) for v in os.getloadavg()],
        "python": platform.python_version(),
        "yardstick": yardstick(),
    }


def _clean(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_clean(v) for v in value]
    return value


def write_result(name: str, data: dict[str, Any], root: Path = RESULTS) -> Path:
    """Write ``<root>/<name>.json`` (NaN and infinity become null)."""
    root.mkdir(parents=True, exist_ok=True)
    path = root / f"{name}.json"
    path.write_text(json.dumps(_clean(data), indent=1, ensure_ascii=False) + "\n", "utf-8")
    return path


def read_result(name: str, root: Path = RESULTS) -> dict[str, Any] | None:
    """``<root>/<name>.json`` if it exists."""
    path = root / f"{name}.json"
    if not path.is_file():
        return None
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data
