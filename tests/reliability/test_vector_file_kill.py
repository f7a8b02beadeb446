"""SIGKILL while a vector file is committed: the old file or the new one, never a torn one.

A real process writes the next vector file over the current one and is stalled inside
the commit (its ``os.fsync`` blocks at the chosen call), then killed with SIGKILL. The
file at the path must open, pass its checksum and hold exactly the old records (killed
before the rename) or exactly the new ones (killed after it); the next commit succeeds.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from tests.support.processes import subprocess_env

from opindex.embedding import BundledEmbedder
from opindex.engine.vectors import VectorStore, embed_records
from opindex.records import Record
from opindex.search import FieldValue, SearchDocument

pytestmark = pytest.mark.slow

VICTIM = textwrap.dedent(
    """
    import os, sys, time
    from pathlib import Path
    from opindex.embedding import BundledEmbedder
    from opindex.engine.vectors import VectorStore, embed_records
    from opindex.records import Record
    from opindex.search import SearchDocument

    target, stall_at = Path(sys.argv[1]), int(sys.argv[2])
    store = VectorStore.open(target)
    records = [
        Record(SearchDocument("wiki_page", n, {}), title=f"Runbook number {n} for the relay")
        for n in range(100, 160)
    ]
    entries = embed_records(records, BundledEmbedder())
    calls = 0
    real_fsync = os.fsync

    def fsync(fd):
        global calls
        calls += 1
        if calls == stall_at:
            print("stalled", flush=True)
            time.sleep(600)
        real_fsync(fd)

    os.fsync = fsync
    store.updated(target, upserts=entries, deletes=[("work_package", 1)])
    print("finished", flush=True)
    """
)
OLD_KEYS = [("work_package", 1), ("work_package", 2)]
NEW_KEYS = [("work_package", 2)] + [("wiki_page", n) for n in range(100, 160)]


def _first_store(path: Path) -> VectorStore:
    records = [
        Record(
            SearchDocument("work_package", n, {"description": (FieldValue("Long text " * 50),)}),
            title=f"Task {n}",
        )
        for n in (1, 2)
    ]
    embedder = BundledEmbedder()
    return VectorStore.create(
        path, embed_records(records, embedder), model=embedder.model_id, dimension=256
    )


@pytest.mark.parametrize(
    ("stall_at", "expected"),
    [(1, OLD_KEYS), (2, NEW_KEYS)],
    ids=["before-rename", "after-rename"],
)
def test_a_killed_commit_leaves_a_whole_vector_file(
    tmp_path: Path, stall_at: int, expected: list[tuple[str, int]]
) -> None:
    target = tmp_path / "vectors.bin"
    _first_store(target)
    victim = subprocess.Popen(
        [sys.executable, "-c", VICTIM, str(target), str(stall_at)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=subprocess_env(),
    )
    try:
        assert victim.stdout is not None
        line = victim.stdout.readline()  # returns at once if the victim dies instead
        assert line == "stalled\n", victim.stderr.read() if victim.stderr else line
        victim.send_signal(signal.SIGKILL)
        assert victim.wait(timeout=30) == -signal.SIGKILL
    finally:
        if victim.poll() is None:
            victim.kill()
            victim.wait(timeout=30)
    survivor = VectorStore.open(target, model=BundledEmbedder().model_id)  # checksum verified
    assert survivor.keys() == expected
    leftover = tmp_path / ".vectors.bin.tmp"
    assert leftover.exists() == (stall_at == 1)  # the torn write stays aside, never read
    embedder = BundledEmbedder()
    extra = Record(SearchDocument("meeting", 7, {}), title="Budget review")
    after = survivor.updated(target, upserts=embed_records([extra], embedder))
    assert after.keys() == [*expected, ("meeting", 7)]
    assert not leftover.exists()
