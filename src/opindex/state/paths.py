"""On-disk layout of a data directory: one private sub-directory per tenant."""

from __future__ import annotations

import os
import re
from pathlib import Path

from opindex.errors import InvalidArgumentError, StateError

TENANT_NAME_PATTERN = re.compile(r"[a-z0-9_-]+")
"""Tenant names are used as directory names, so they are restricted to this alphabet."""

STATE_DB_NAME = "state.sqlite3"
LOCK_FILE_NAME = "sync.lock"

PRIVATE_DIR_MODE = 0o700
PRIVATE_FILE_MODE = 0o600


def is_valid_tenant_name(name: str) -> bool:
    """True if ``name`` may name a tenant (lower-case letters, digits, ``_`` and ``-``)."""
    return TENANT_NAME_PATTERN.fullmatch(name) is not None


def tenant_directory(data_dir: Path, tenant: str) -> Path:
    """``<data_dir>/<tenant>``; refuses names that could escape the data directory."""
    if not is_valid_tenant_name(tenant):
        raise InvalidArgumentError(
            f"invalid tenant name {tenant!r}: use lower-case letters, digits, '_' and '-'"
        )
    return data_dir / tenant


def state_db_path(data_dir: Path, tenant: str) -> Path:
    """Where a tenant's state database lives: ``<data_dir>/<tenant>/state.sqlite3``."""
    return tenant_directory(data_dir, tenant) / STATE_DB_NAME


def lock_file_path(data_dir: Path, tenant: str) -> Path:
    """Where a tenant's sync lock lives: ``<data_dir>/<tenant>/sync.lock``."""
    return tenant_directory(data_dir, tenant) / LOCK_FILE_NAME


def ensure_private_directory(path: Path) -> Path:
    """Create ``path`` (and missing parents) if absent; a directory created here is 0o700.

    An existing directory keeps its permissions: the operator chose them.
    Raises StateError if the directory cannot be created or is not a directory.
    """
    if path.is_dir():
        return path
    try:
        path.mkdir(parents=True, exist_ok=True)
        os.chmod(path, PRIVATE_DIR_MODE)
    except OSError as exc:
        raise StateError(f"cannot create directory {path}: {exc.strerror or exc}") from exc
    return path


def ensure_tenant_directory(data_dir: Path, tenant: str) -> Path:
    """Create the data directory and the tenant's directory below it, both private."""
    ensure_private_directory(data_dir)
    return ensure_private_directory(tenant_directory(data_dir, tenant))


def create_private_file(path: Path) -> None:
    """Create an empty file readable only by its owner (0o600) unless it already exists."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE_FILE_MODE)
    except FileExistsError:
        return
    except OSError as exc:
        raise StateError(f"cannot create {path}: {exc.strerror or exc}") from exc
    os.close(fd)


def move_aside(path: Path, suffix: str) -> Path:
    """Rename ``path`` and its SQLite companions (``-wal``, ``-shm``) to
    ``<name>.<suffix>`` (numbered if taken), keeping them for inspection; returns the new
    path of the main file. Raises StateError if a rename fails."""
    target = path.with_name(f"{path.name}.{suffix}")
    number = 1
    while target.exists():
        number += 1
        target = path.with_name(f"{path.name}.{suffix}-{number}")
    try:
        for companion in ("-wal", "-shm"):
            source = path.with_name(path.name + companion)
            if source.exists():
                source.rename(target.with_name(target.name + companion))
        path.rename(target)
    except OSError as exc:
        raise StateError(f"cannot move {path} aside: {exc.strerror or exc}") from exc
    return target
