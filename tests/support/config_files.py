"""Tenant configurations and ``opindex.toml`` files pointing at sandboxes, for tests."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from tests.support.corpus_builder import MEMBER_KEY
from tests.support.sandbox import SandboxHandle

from opindex.config import Secret, TenantConfig

TenantEntry = tuple[str, "SandboxHandle | str", str]
"""(tenant name, its sandbox or base URL, API key)."""


def make_tenant(
    sandbox: SandboxHandle, key: str = MEMBER_KEY, name: str = "acme", **settings: Any
) -> TenantConfig:
    """A tenant (``acme`` unless named) on the sandbox, built with ``key``."""
    return TenantConfig(name=name, base_url=sandbox.base_url, api_key=Secret(key), **settings)


def write_config(
    directory: Path,
    tenants: Iterable[TenantEntry],
    *,
    data_dir: str = "data",
    server: Mapping[str, Any] | None = None,
    **settings: Any,
) -> Path:
    """``directory/opindex.toml`` (mode 0600) with one ``[[tenants]]`` table per entry;
    ``server`` fills the ``[server]`` table, ``settings`` are added to every tenant."""
    lines = [f"data_dir = {_toml(data_dir)}"]
    if server:
        lines += ["", "[server]", *(f"{key} = {_toml(value)}" for key, value in server.items())]
    for name, where, key in tenants:
        base_url = where if isinstance(where, str) else where.base_url
        lines += [
            "",
            "[[tenants]]",
            f"name = {_toml(name)}",
            f"base_url = {_toml(base_url)}",
            f"api_key = {_toml(key)}",
            *(f"{setting} = {_toml(value)}" for setting, value in settings.items()),
        ]
    path = directory / "opindex.toml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    path.chmod(0o600)
    return path


def _toml(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return str(value)
