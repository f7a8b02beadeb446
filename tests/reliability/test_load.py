"""A small version of scripts/bench_load.py: concurrent MCP HTTP clients search while syncs
commit to the same tenant; no search may fail."""

from __future__ import annotations

from pathlib import Path

import pytest
from scripts.bench_load import run

from opindex.sandbox.corpus_gen import CorpusSize, generate_corpus


@pytest.mark.slow
def test_concurrent_searches_during_committing_syncs_never_fail(tmp_path: Path) -> None:
    corpus = generate_corpus(CorpusSize.proportional(200), seed=3)
    result = run(corpus, tmp_path, clients=4, searches=20, min_commits=2)
    assert result.errors == []
    assert result.sync_errors == []
    assert result.searches >= 4 * 20
    assert result.commits_during_load >= 2  # reads and commits really overlapped
    assert result.answered_live == 0  # the fresh index answered every search
