"""Writes that fail half-way, as on a full disk: ``opindex`` runs with a file-size limit
(RLIMIT_FSIZE; Python ignores SIGXFSZ, so an oversized write fails with EFBIG) smaller than
the index files a full rebuild writes, but larger than what a run writes otherwise."""

from __future__ import annotations

import asyncio
import resource
import subprocess
from pathlib import Path

import pytest
from tests.reliability.conftest import assert_exactly_once, index_snapshot, run_outcomes
from tests.support.config_files import write_config
from tests.support.corpora import ADA, expected_all
from tests.support.processes import opindex_argv, subprocess_env
from tests.support.sandbox import running_sandbox

from opindex import cli
from opindex.config import load_config
from opindex.sandbox.corpus_gen import ADMIN_KEY, CorpusSize, generate_corpus
from opindex.sync import index_directory, sync_tenant, tenant_status

LIMIT_BYTES = 60_000
"""Below the ~120 KB document store of 300 work packages."""

pytestmark = pytest.mark.slow


def _limited() -> None:
    resource.setrlimit(resource.RLIMIT_FSIZE, (LIMIT_BYTES, LIMIT_BYTES))


def _run_limited(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        opindex_argv(*args),
        capture_output=True,
        text=True,
        timeout=300,
        env=subprocess_env(),
        preexec_fn=_limited,
    )


def test_failed_writes_keep_the_last_good_index_and_the_next_run_recovers(
    tmp_path: Path,
) -> None:
    corpus = generate_corpus(CorpusSize.proportional(300), seed=3)
    with running_sandbox(corpus, wiki_list=True) as sandbox:
        config_path = write_config(tmp_path, [("acme", sandbox, ADMIN_KEY)])
        config = load_config(config_path)
        asyncio.run(sync_tenant(config.tenants[0], config.data_dir))
        before = index_snapshot(config.data_dir)
        directory = index_directory(config.data_dir, "acme")
        live = directory.current()

        rebuild = _run_limited("rebuild", "--config", str(config_path), "--tenant", "acme")
        assert rebuild.returncode == cli.EXIT_LOCAL_STORAGE, rebuild.stderr[-2000:]
        assert "Traceback" not in rebuild.stderr
        assert "cannot write" in rebuild.stderr or "cannot commit" in rebuild.stderr
        assert directory.current() == live and directory.generations() == [live]
        assert index_snapshot(config.data_dir) == before

        # A full sync writes into the live generation; the state transaction after the
        # index commit is what fails here (the database grows past the limit).
        full = _run_limited("sync", "--config", str(config_path), "--full")
        assert full.returncode == cli.EXIT_LOCAL_STORAGE, full.stderr[-2000:]
        assert "Traceback" not in full.stderr
        assert index_snapshot(config.data_dir) == before
        status = tenant_status(config.tenants[0], config.data_dir)
        assert status.freshness == "fresh" and status.last_error is not None

        assert cli.main(["sync", "--config", str(config_path), "--quiet"]) == cli.EXIT_OK
    assert_exactly_once(index_snapshot(config.data_dir), expected_all(corpus, ADA))
    assert run_outcomes(config.data_dir) == ["succeeded", "failed", "failed", "succeeded"]
