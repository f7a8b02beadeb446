"""Service test fixtures: an empty tenant index on disk."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from opindex.index import TenantIndex


@pytest.fixture
def tenant_index(tmp_path: Path) -> Iterator[TenantIndex]:
    """An empty, published tenant index on disk."""
    index = TenantIndex.create(tmp_path / "index")
    yield index
    index.close()
