"""Attached files accounted honestly: an empty file is ``empty``, a failed download keeps
its reason and waits out a back-off, and a sync killed mid-download leaves nothing behind."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
from pathlib import Path

import pytest
from tests.support.clock import Clock
from tests.support.corpus_builder import MEMBER_KEY, CorpusBuilder
from tests.support.processes import opindex_argv, subprocess_env, wait_until
from tests.support.synced_tenant import synced_tenant

from opindex.state import StateStore
from opindex.sync import sync_tenant
from opindex.sync.attachments import DOWNLOAD_FAILED, DOWNLOAD_RETRY_AFTER, DOWNLOADS_DIR

WP = 41
EMPTY, GOOD, BROKEN = 51, 52, 53
CONTENT = "/api/v3/attachments/{}/content"


def _corpus() -> CorpusBuilder:
    corpus = CorpusBuilder()
    corpus.add_work_package(WP, subject="Files")
    corpus.add_attachment(EMPTY, ("work_packages", WP), fileName="empty.txt", contentBase64="")
    corpus.add_attachment(GOOD, ("work_packages", WP), fileName="good.txt")
    corpus.add_attachment(BROKEN, ("work_packages", WP), fileName="broken.txt")
    return corpus


def _outcomes(data_dir: Path) -> dict[int, tuple[str, str | None]]:
    with StateStore.for_tenant(data_dir, "acme") as state:
        rows = state.extractions([EMPTY, GOOD, BROKEN])
    return {row.id: (row.outcome, row.reason) for row in rows.values()}


def test_empty_file_and_failed_download_are_accounted_and_backed_off(tmp_path: Path) -> None:
    clock = Clock()
    with synced_tenant(tmp_path, _corpus().build(), MEMBER_KEY, do_sync=False) as site:
        tenant, data_dir = site.config.tenants[0], site.data_dir

        def run() -> dict[int, tuple[str, str | None]]:
            asyncio.run(sync_tenant(tenant, data_dir, clock=clock))
            return _outcomes(data_dir)

        site.sandbox.fault(CONTENT.format(BROKEN), status=500, count=1000)
        assert run() == {
            EMPTY: ("empty", None),
            GOOD: ("extracted", None),
            BROKEN: ("deferred", DOWNLOAD_FAILED),
        }
        site.sandbox.clear_faults()
        site.sandbox.reset_stats()
        clock.advance(hours=1)  # within the back-off: not tried again
        assert run()[BROKEN] == ("deferred", DOWNLOAD_FAILED)
        assert CONTENT.format(BROKEN) not in site.sandbox.stats()["by_path"]
        clock.advance(
            seconds=DOWNLOAD_RETRY_AFTER.total_seconds()
        )  # the back-off over: tried, and read
        assert run()[BROKEN] == ("extracted", None)
        assert site.sandbox.stats()["by_path"][CONTENT.format(BROKEN)] >= 1


def _leftovers(*directories: Path) -> list[Path]:
    return [
        entry
        for directory in directories
        if directory.is_dir()
        for entry in directory.iterdir()
        if entry.name.startswith("opindex-attachment-")
    ]


@pytest.mark.slow
def test_sigkill_during_a_download_leaves_no_directory_after_the_next_run(
    tmp_path: Path,
) -> None:
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    env = subprocess_env(TMPDIR=str(scratch))
    with synced_tenant(tmp_path, _corpus().build(), MEMBER_KEY, do_sync=False) as site:
        downloads = site.data_dir / "acme" / DOWNLOADS_DIR
        site.sandbox.fault(CONTENT.format(GOOD), hang=60, count=10)
        sync = opindex_argv("sync", "--config", str(site.config_path))
        process = subprocess.Popen(
            sync, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        try:
            wait_until(lambda: bool(_leftovers(downloads, scratch)), "a download under way", 60)
            os.kill(process.pid, signal.SIGKILL)
            process.wait(timeout=10)
        finally:
            if process.poll() is None:
                process.kill()
                process.wait(timeout=10)
        assert _leftovers(downloads, scratch), "the kill came after the download"
        site.sandbox.clear_faults()
        done = subprocess.run(sync, env=env, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        assert _leftovers(downloads, scratch) == []
        assert _outcomes(site.data_dir)[GOOD] == ("extracted", None)
