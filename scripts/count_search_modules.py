"""How many opindex modules one warm index-path fuzzy search executes, and their lines.

python scripts/count_search_modules.py [--data-dir DIR --tenant NAME] [--query TEXT] [--json]

Without ``--data-dir`` the bundled sample corpus is synced (in process, by the real
syncer reading the real sandbox application) into a temporary directory. Then the same
call the MCP ``search`` tool makes, ``Service.search``, answers one fuzzy query from the
index twice: the first warms every cache, the second is watched. A profile hook on every
thread (the index search runs in a worker thread) collects the source file of each Python
function called during that second search; the files under ``src/opindex`` are the
modules it executed. Printed: their count, their lines in all, and the list.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any

import opindex
from evallib.search_paths import bench_config
from evallib.tenant_data import IN_PROCESS_URL, sync_in_process
from opindex.envelope import SearchRequest
from opindex.sandbox.sample_corpus import sample_corpus_path
from opindex.service import Service

PACKAGE = Path(opindex.__file__).resolve().parent
DEFAULT_QUERY = "budgte reviw"
"""Two misspelt words: a fuzzy query the index path ranks with the text engine."""


@dataclass(frozen=True, slots=True)
class ModuleCount:
    """The opindex modules one search executed (dotted names, sorted) and their lines."""

    modules: tuple[str, ...]
    lines: int
    answered_by: str
    results: int


class _Watch:
    """A profile hook that records the code files of calls while ``on`` is set."""

    def __init__(self) -> None:
        self.on = False
        self.files: set[str] = set()
        self._lock = threading.Lock()

    def __call__(self, frame: FrameType, event: str, arg: Any) -> None:
        if self.on and event == "call":
            name = frame.f_code.co_filename
            if name not in self.files:
                with self._lock:
                    self.files.add(name)


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _opindex_files(files: set[str]) -> list[Path]:
    found: list[Path] = []
    for name in files:
        path = Path(name).resolve()
        if path.suffix == ".py" and path.is_relative_to(PACKAGE):
            found.append(path)
    return sorted(found)


async def _watched_search(
    data_dir: Path, tenant: str, query: str, kind: str
) -> tuple[set[str], str, int]:
    config = bench_config(data_dir, tenant, IN_PROCESS_URL)
    request = SearchRequest.model_validate(
        {"kind": kind, "query": query, "source": "index", "limit": 10}
    )
    watch = _Watch()
    threading.setprofile(watch)  # threads started from now on (the worker pool)
    sys.setprofile(watch)
    service = Service.from_config(config)
    try:
        await service.search(request, tenant=tenant)  # warm: caches, worker thread, imports
        watch.on = True
        response = await service.search(request, tenant=tenant)
        watch.on = False
    finally:
        sys.setprofile(None)
        threading.setprofile(None)
        await service.aclose()
    return watch.files, response.meta.source, len(response.results)


def count_modules(
    data_dir: Path, tenant: str, query: str = DEFAULT_QUERY, kind: str = "work_package"
) -> ModuleCount:
    """The modules one warm index-path search of *query* executes on *tenant*."""
    files, answered_by, results = asyncio.run(_watched_search(data_dir, tenant, query, kind))
    paths = _opindex_files(files)
    lines = sum(len(path.read_text(encoding="utf-8").splitlines()) for path in paths)
    return ModuleCount(tuple(sorted(map(_module_name, paths))), lines, answered_by, results)


def sync_sample(data_dir: Path, tenant: str) -> None:
    """A full sync of the bundled sample corpus into *data_dir*."""
    asyncio.run(sync_in_process(sample_corpus_path(), data_dir, tenant))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, help="a data directory holding --tenant")
    parser.add_argument("--tenant", default="sample")
    parser.add_argument("--query", default=DEFAULT_QUERY)
    parser.add_argument("--kind", default="work_package")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="opindex-count-") as scratch:
        data_dir = args.data_dir
        if data_dir is None:
            data_dir = Path(scratch)
            sync_sample(data_dir, args.tenant)
        counted = count_modules(data_dir, args.tenant, args.query, args.kind)
    if args.json:
        print(
            json.dumps(
                {
                    "modules": list(counted.modules),
                    "lines": counted.lines,
                    "answered_by": counted.answered_by,
                    "results": counted.results,
                }
            )
        )
    else:
        for module in counted.modules:
            print(module)
        print(
            f"{len(counted.modules)} modules, {counted.lines} lines "
            f"(answered by {counted.answered_by}, {counted.results} results)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
