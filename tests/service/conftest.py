"""Service test fixtures; makes ``tests.support`` importable without the root on sys.path."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

_ROOT = str(Path(__file__).resolve().parents[2])
if _ROOT not in sys.path:
    sys.path.insert(0, _ROOT)

from opindex.index import TenantIndex  # noqa: E402


@pytest.fixture
def tenant_index(tmp_path: Path) -> Iterator[TenantIndex]:
    """An empty, published tenant index on disk."""
    index = TenantIndex.create(tmp_path / "index")
    yield index
    index.close()
