"""Tenant data directories for benchmarks: synced once per corpus and code, then reused.

An index is built by the real syncer (``opindex.sync.sync_tenant``) reading the real
sandbox application, in process over ``httpx.ASGITransport``: the same requests and the
same code as a sync over the network, without paying the loopback round trips for the
~11,000 requests a 10k-document tenant needs. The result is cached under
``bench-results/tenants/`` keyed by the corpus file's hash and a hash of the code that
decides what is indexed (sync, index, search, OpenProject client, sandbox), so changing
either rebuilds it.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

import opindex
from opindex.config import Secret, TenantConfig
from opindex.sandbox.app import create_app
from opindex.sandbox.corpus_check import load_corpus_file
from opindex.sandbox.corpus_gen import ADMIN_KEY
from opindex.sandbox.options import SandboxOptions
from opindex.sync import sync_tenant

SOURCE = Path(opindex.__file__).resolve().parent  # the opindex that runs, wherever it is
INDEXED_BY = (
    "engine",
    "index",
    "sync",
    "search",
    "openproject",
    "sandbox",
    "record_builders.py",
    "records.py",
)
IN_PROCESS_URL = "http://sandbox.invalid"
READY = "ready.json"


def file_hash(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def code_hash() -> str:
    """Hash of the source files that decide what an index holds."""
    digest = hashlib.sha256()
    for name in INDEXED_BY:
        root = SOURCE / name
        files = sorted(root.rglob("*.py")) if root.is_dir() else [root]
        for path in files:
            digest.update(str(path.relative_to(SOURCE)).encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


@dataclass(frozen=True, slots=True)
class TenantData:
    """A synced tenant: its data directory, name, and what the sync reported."""

    data_dir: Path
    tenant: str
    sync: dict[str, Any]


async def sync_in_process(corpus: Path, data_dir: Path, tenant: str) -> dict[str, Any]:
    """Full sync of *corpus* (served in process) into *data_dir*; returns figures."""
    app = create_app(load_corpus_file(corpus), SandboxOptions(corpus_path=corpus))
    config = TenantConfig(name=tenant, base_url=IN_PROCESS_URL, api_key=Secret(ADMIN_KEY))
    started = time.perf_counter()
    report = await sync_tenant(config, data_dir, transport=httpx.ASGITransport(app=app))
    return {
        "seconds": time.perf_counter() - started,
        "requests": report.requests,
        "documents": dict(report.documents),
        "generation": report.generation,
    }


def cached_tenant(
    corpus: Path,
    cache_root: Path,
    tenant: str,
    build: Callable[[Path], dict[str, Any]],
    *,
    variant: str = "",
    any_code: bool = False,
) -> TenantData:
    """The cached data directory of *tenant* built from *corpus* by *variant*, or built now
    by ``build(directory)`` (which returns its figures); keyed by the corpus and the code,
    and older builds of the same corpus and variant are removed.

    With *any_code*, a build of the same corpus and variant made by other code is reused
    when none matches this code (the newest such build): for re-measuring search code
    changes on a large tenant without building it again. Only sound while the index
    layout is unchanged; a reader of another layout fails on it."""
    suffix = f"-{variant}" if variant else ""
    corpus_key = f"{corpus.stem}-{file_hash(corpus)[:12]}"
    key = f"{corpus_key}-{code_hash()[:12]}{suffix}"
    target = cache_root / key
    candidates = [target]
    if any_code:
        others = cache_root.glob(f"{corpus_key}-{'?' * 12}{suffix}")
        candidates += sorted(
            (d for d in others if d != target and (d / READY).is_file()),
            key=lambda d: (d / READY).stat().st_mtime,
            reverse=True,
        )
    for found in candidates:
        ready = found / READY
        if ready.is_file():
            info = json.loads(ready.read_text(encoding="utf-8"))
            if info.get("tenant") == tenant:
                return TenantData(found, tenant, info["sync"])
    building = cache_root / f"{key}.building"
    shutil.rmtree(building, ignore_errors=True)
    shutil.rmtree(target, ignore_errors=True)
    building.mkdir(parents=True)
    figures = build(building)
    (building / READY).write_text(json.dumps({"tenant": tenant, "sync": figures}), "utf-8")
    building.rename(target)
    hashes = "-" + "?" * 12 + "-" + "?" * 12  # only this corpus's builds of this variant
    for stale in cache_root.glob(f"{corpus.stem}{hashes}{suffix}"):
        if stale != target and stale.is_dir():
            shutil.rmtree(stale, ignore_errors=True)
    return TenantData(target, tenant, figures)


def ensure_tenant(
    corpus: Path, cache_root: Path, tenant: str = "bench", *, any_code: bool = False
) -> TenantData:
    """A data directory holding *tenant* synced from *corpus* (cached, see module doc)."""
    return cached_tenant(
        corpus,
        cache_root,
        tenant,
        lambda d: asyncio.run(sync_in_process(corpus, d, tenant)),
        any_code=any_code,
    )


def copy_tenant(source: TenantData, data_dir: Path, name: str) -> None:
    """Copy *source*'s tenant into *data_dir* under another tenant *name*."""
    shutil.copytree(source.data_dir / source.tenant, data_dir / name)
