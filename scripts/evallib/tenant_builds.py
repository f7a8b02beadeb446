"""Benchmark tenants built once per corpus and code, by sync or in bulk, with their cost.

``sync`` runs the real syncer against the sandbox served in process
(:func:`evallib.tenant_data.ensure_tenant`); ``bulk`` indexes the corpus records directly
(:mod:`evallib.bulk_tenant`), which a 1M-document tenant needs to be built in reasonable
time. Both are cached under ``bench-results/tenants/`` and keyed by the corpus file's
hash and the hash of the code that decides what is indexed; the build time recorded is
the one of the build that made the cached tenant.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from evallib.bulk_tenant import COMMIT_RECORDS, bulk_build
from evallib.tenant_data import TenantData, cached_tenant, ensure_tenant
from opindex.config import Secret, TenantConfig
from opindex.sandbox.corpus_gen import ADMIN_KEY

BuildMethod = Literal["sync", "bulk"]
BUILD_METHODS: tuple[BuildMethod, ...] = ("sync", "bulk")


@dataclass(frozen=True, slots=True)
class TenantBuild:
    """A cached tenant, how it was built, how long that took and what it occupies."""

    tenant: TenantData
    method: BuildMethod
    build_seconds: float
    build_cpu_seconds: float | None
    disk_bytes: int
    corpus_bytes: int

    def to_json(self) -> dict[str, object]:
        return {
            "method": self.method,
            "build_s": self.build_seconds,
            "build_cpu_s": self.build_cpu_seconds,
            "disk_bytes": self.disk_bytes,
            "corpus_bytes": self.corpus_bytes,
            "documents": self.tenant.sync["documents"],
            "requests": self.tenant.sync.get("requests", 0),
        }


def directory_bytes(root: Path) -> int:
    """Bytes of every file under *root* (the index generations and the state database)."""
    return sum(path.stat().st_size for path in root.rglob("*") if path.is_file())


def _bulk_tenant(
    corpus: Path, cache_root: Path, tenant: str, *, any_code: bool, commit_every: int
) -> TenantData:
    config = TenantConfig(name=tenant, base_url="http://sandbox.invalid", api_key=Secret(ADMIN_KEY))

    def build(directory: Path) -> dict[str, Any]:
        started, cpu = time.perf_counter(), time.process_time()
        report = bulk_build(corpus, directory, config, commit_every=commit_every)
        return {
            "seconds": time.perf_counter() - started,
            "cpu_seconds": time.process_time() - cpu,
            "requests": 0,
            "documents": report.documents,
            "generation": report.generation,
        }

    variant = "bulk" if commit_every == COMMIT_RECORDS else f"bulk-c{commit_every}"
    return cached_tenant(corpus, cache_root, tenant, build, variant=variant, any_code=any_code)


def build_tenant(
    corpus: Path,
    cache_root: Path,
    method: BuildMethod = "bulk",
    tenant: str = "bench",
    *,
    any_code: bool = False,
    commit_every: int = COMMIT_RECORDS,
) -> TenantBuild:
    """The cached tenant of *corpus* built by *method* (built now if missing); with
    *any_code*, one cached by other code is reused (see ``cached_tenant``). A bulk build
    commits every *commit_every* records (another value is cached as another variant)."""
    if method == "sync":
        data = ensure_tenant(corpus, cache_root, tenant, any_code=any_code)
    elif method == "bulk":
        data = _bulk_tenant(
            corpus, cache_root, tenant, any_code=any_code, commit_every=commit_every
        )
    else:
        raise ValueError(f"unknown build method {method!r}; choose one of {BUILD_METHODS}")
    return TenantBuild(
        tenant=data,
        method=method,
        build_seconds=float(data.sync["seconds"]),
        build_cpu_seconds=float(data.sync["cpu_seconds"]) if "cpu_seconds" in data.sync else None,
        disk_bytes=directory_bytes(data.data_dir / tenant),
        corpus_bytes=corpus.stat().st_size,
    )
