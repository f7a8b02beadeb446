"""A sandbox serving a corpus, a configuration file for it, and a synced tenant index."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.support.sandbox import SandboxHandle, running_sandbox

from opindex.config import Config, load_config_file
from opindex.sync import sync_tenant

TENANT = "acme"


@dataclass(frozen=True)
class SyncedTenant:
    """The running sandbox, the config file naming it, and the loaded configuration."""

    sandbox: SandboxHandle
    config_path: Path
    config: Config

    @property
    def data_dir(self) -> Path:
        return self.config.data_dir


def write_config(directory: Path, base_url: str, key: str, **settings: Any) -> Path:
    """``opindex.toml`` with one tenant ``acme`` and ``data_dir = "data"``."""
    lines = [
        'data_dir = "data"',
        "",
        "[[tenants]]",
        f'name = "{TENANT}"',
        f'base_url = "{base_url}"',
        f'api_key = "{key}"',
        *(f"{name} = {value}" for name, value in settings.items()),
    ]
    path = directory / "opindex.toml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    path.chmod(0o600)
    return path


def sync(config: Config) -> None:
    """One full sync of every tenant of *config*."""
    for tenant in config.tenants:
        asyncio.run(sync_tenant(tenant, config.data_dir, full=True))


@contextmanager
def synced_tenant(
    directory: Path, corpus: dict[str, Any], key: str, *, do_sync: bool = True, **options: Any
) -> Iterator[SyncedTenant]:
    """Serve *corpus*, configure tenant ``acme`` with *key*, and sync it (unless told not)."""
    with running_sandbox(corpus, **options) as sandbox:
        config_path = write_config(directory, sandbox.base_url, key)
        config = load_config_file(config_path)
        if do_sync:
            sync(config)
        yield SyncedTenant(sandbox, config_path, config)
