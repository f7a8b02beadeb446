"""Where a tenant's index generations live inside the data directory."""

from __future__ import annotations

from pathlib import Path

from opindex.index import IndexDirectory
from opindex.state import tenant_directory

INDEX_DIR_NAME = "index"


def index_root(data_dir: Path, tenant: str) -> Path:
    """``<data_dir>/<tenant>/index``: the CURRENT pointer and the generation directories."""
    return tenant_directory(data_dir, tenant) / INDEX_DIR_NAME


def index_directory(data_dir: Path, tenant: str) -> IndexDirectory:
    """The tenant's :class:`~opindex.index.IndexDirectory`."""
    return IndexDirectory(index_root(data_dir, tenant))
