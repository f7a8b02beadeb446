"""Fixtures for the index tests: a fresh tenant index on disk per test."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from opindex.index import TenantIndex


@pytest.fixture
def index_root(tmp_path: Path) -> Path:
    """Where the tenant's generations live."""
    return tmp_path / "tenant" / "index"


@pytest.fixture
def index(index_root: Path) -> Iterator[TenantIndex]:
    """An empty, published tenant index."""
    opened = TenantIndex.create(index_root)
    yield opened
    opened.close()
