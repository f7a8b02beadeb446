"""Fixtures of the syncer tests: the sample corpus served by a sandbox, a clock, indexed ids."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.support.corpora import sample_corpus
from tests.support.sandbox import SandboxHandle, running_sandbox

from opindex.index import TenantIndex
from opindex.sync import index_directory


def indexed_ids(data_dir: Path, tenant: str, kind: str) -> list[int]:
    """Every id of ``kind`` in the tenant's live index (duplicates would show twice)."""
    with TenantIndex(index_directory(data_dir, tenant)) as index:
        return index.all_ids(kind)


@pytest.fixture
def corpus() -> dict[str, Any]:
    return sample_corpus()


@pytest.fixture
def sandbox(corpus: dict[str, Any]) -> Iterator[SandboxHandle]:
    """A sandbox with the wiki list endpoint: one request lists every wiki page, which
    keeps tests that are not about wiki discovery fast."""
    with running_sandbox(corpus, wiki_list=True) as handle:
        yield handle


@pytest.fixture
def probing_sandbox(corpus: dict[str, Any]) -> Iterator[SandboxHandle]:
    """A sandbox shaped like released servers: wiki pages are found by id probing."""
    with running_sandbox(corpus) as handle:
        yield handle
