"""A sandbox serving a corpus, a configuration file for it, and a synced tenant index."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from tests.support.config_files import write_config
from tests.support.sandbox import SandboxHandle, running_sandbox

from opindex.config import Config, load_config_file
from opindex.sync import sync_tenant

TENANT = "acme"


def _now() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True)
class SyncedTenant:
    """The running sandbox, the config file naming it, and the loaded configuration."""

    sandbox: SandboxHandle
    config_path: Path
    config: Config

    @property
    def data_dir(self) -> Path:
        return self.config.data_dir


def sync(config: Config, *, clock: Callable[[], datetime] | None = None) -> None:
    """One full sync of every tenant of *config*; *clock* stamps the run (a clock set back
    makes the index look older at once, without waiting)."""
    for tenant in config.tenants:
        asyncio.run(sync_tenant(tenant, config.data_dir, full=True, clock=clock or _now))


@contextmanager
def synced_tenant(
    directory: Path, corpus: dict[str, Any], key: str, *, do_sync: bool = True, **options: Any
) -> Iterator[SyncedTenant]:
    """Serve *corpus*, configure tenant ``acme`` with *key*, and sync it (unless told not)."""
    with running_sandbox(corpus, **options) as sandbox:
        config_path = write_config(directory, [(TENANT, sandbox, key)])
        config = load_config_file(config_path)
        if do_sync:
            sync(config)
        yield SyncedTenant(sandbox, config_path, config)
