"""Benchmark tenants built once per corpus and code, by sync or in bulk, with their cost.

``sync`` runs the real syncer against the sandbox served in process
(:func:`evallib.tenant_data.ensure_tenant`); ``bulk`` indexes the corpus records directly
(:mod:`evallib.bulk_tenant`), which a 1M-document tenant needs to be built in reasonable
time. Both are cached under ``bench-results/tenants/`` and keyed by the corpus file's
hash and the hash of the code that decides what is indexed; the build time recorded is
the one of the build that made the cached tenant.
"""

from __future__ import annotations

import json
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from evallib.bulk_tenant import bulk_build
from evallib.tenant_data import READY, TenantData, code_hash, ensure_tenant, file_hash
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
    disk_bytes: int
    corpus_bytes: int

    def to_json(self) -> dict[str, object]:
        return {
            "method": self.method,
            "build_s": self.build_seconds,
            "disk_bytes": self.disk_bytes,
            "corpus_bytes": self.corpus_bytes,
            "documents": self.tenant.sync["documents"],
            "requests": self.tenant.sync.get("requests", 0),
        }


def directory_bytes(root: Path) -> int:
    """Bytes of every file under *root* (the index generations and the state database)."""
    return sum(path.stat().st_size for path in root.rglob("*") if path.is_file())


def _bulk_tenant(corpus: Path, cache_root: Path, tenant: str) -> TenantData:
    key = f"{corpus.stem}-{file_hash(corpus)[:12]}-{code_hash()[:12]}-bulk"
    target = cache_root / key
    ready = target / READY
    if ready.is_file():
        info = json.loads(ready.read_text(encoding="utf-8"))
        if info.get("tenant") == tenant:
            return TenantData(target, tenant, info["sync"])
    building = cache_root / f"{key}.building"
    shutil.rmtree(building, ignore_errors=True)
    shutil.rmtree(target, ignore_errors=True)
    building.mkdir(parents=True)
    config = TenantConfig(name=tenant, base_url="http://sandbox.invalid", api_key=Secret(ADMIN_KEY))
    started = time.perf_counter()
    report = bulk_build(corpus, building, config)
    figures = {
        "seconds": time.perf_counter() - started,
        "requests": 0,
        "documents": report.documents,
        "generation": report.generation,
    }
    (building / READY).write_text(json.dumps({"tenant": tenant, "sync": figures}), "utf-8")
    building.rename(target)
    for stale in cache_root.glob(f"{corpus.stem}-*-bulk"):
        if stale != target and stale.is_dir():
            shutil.rmtree(stale, ignore_errors=True)
    return TenantData(target, tenant, figures)


def build_tenant(
    corpus: Path, cache_root: Path, method: BuildMethod = "bulk", tenant: str = "bench"
) -> TenantBuild:
    """The cached tenant of *corpus* built by *method* (built now if missing)."""
    if method == "sync":
        data = ensure_tenant(corpus, cache_root, tenant)
    elif method == "bulk":
        data = _bulk_tenant(corpus, cache_root, tenant)
    else:
        raise ValueError(f"unknown build method {method!r}; choose one of {BUILD_METHODS}")
    return TenantBuild(
        tenant=data,
        method=method,
        build_seconds=float(data.sync["seconds"]),
        disk_bytes=directory_bytes(data.data_dir / tenant),
        corpus_bytes=corpus.stat().st_size,
    )
