"""The vocabulary side file of an index generation: a torn append, a truncated file.

Substring (exact-mode) and prefix searches find their terms through this file, so a term
missing from it makes records silently unfindable: "nothing matched" instead of an error.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.support.config_files import write_config
from tests.support.corpora import PROJECT_MARKERS
from tests.support.sandbox import MEMBER_KEY, SandboxHandle, running_sandbox

from opindex.config import Config, load_config
from opindex.envelope import SearchRequest
from opindex.errors import IndexUnavailableError
from opindex.index.vocabulary_file import VOCABULARY_FILE
from opindex.service import Service
from opindex.sync import index_directory, sync_tenant, tenant_status


@pytest.fixture
def synced(corpus: dict[str, Any], tmp_path: Path) -> Iterator[tuple[SandboxHandle, Config]]:
    with running_sandbox(corpus, wiki_list=True) as sandbox:
        config = load_config(write_config(tmp_path, [("acme", sandbox, MEMBER_KEY)]))
        asyncio.run(sync_tenant(config.tenants[0], config.data_dir))
        yield sandbox, config


def _vocabulary_file(config: Config) -> Path:
    directory = index_directory(config.data_dir, "acme")
    name = directory.current()
    assert name is not None
    return directory.root / name / VOCABULARY_FILE


def _exact_ids(config: Config, needle: str) -> set[int]:
    async def search() -> set[int]:
        async with Service.from_config(config) as service:
            request = SearchRequest(
                kind="work_package", query=needle, match_mode="exact", source="index"
            )
            return {result.id for result in (await service.search(request)).results}

    return asyncio.run(search())


def test_a_torn_vocabulary_append_does_not_swallow_the_next_term(
    synced: tuple[SandboxHandle, Config],
) -> None:
    """A crash or a full disk in the middle of an append leaves a partial last line; the
    next commit's terms must not be glued onto it (fixed: the first new term became
    unfindable by substring search)."""
    sandbox, config = synced
    vocabulary = _vocabulary_file(config)
    with vocabulary.open("ab") as handle:
        handle.write(b"tornter")  # no newline: the tail of an interrupted append
    sandbox.mutate("upsert", "work_packages", {"id": 4, "subject": "Quuxfrob wibblewomp"})
    asyncio.run(sync_tenant(config.tenants[0], config.data_dir))

    assert _exact_ids(config, "uxfro") == {4}
    assert _exact_ids(config, "quuxfrob") == {4}
    assert _exact_ids(config, "bblewo") == {4}
    assert b"tornterquuxfrob" not in vocabulary.read_bytes()


def test_a_truncated_vocabulary_file_is_reported_and_repaired_by_the_next_sync(
    synced: tuple[SandboxHandle, Config],
) -> None:
    """Fixed: an emptied vocabulary file went unnoticed and substring searches silently
    found nothing. Now status names it, searches say so, and the next sync rebuilds."""
    _, config = synced
    tenant = config.tenants[0]
    needle = PROJECT_MARKERS[1][1:6]  # "lphao", inside every project-1 subject
    found = _exact_ids(config, needle)
    assert found
    _vocabulary_file(config).write_bytes(b"")

    problems = tenant_status(tenant, config.data_dir).problems
    assert any("truncated" in problem and "rebuild" in problem for problem in problems)
    with pytest.raises(IndexUnavailableError, match="truncated"):
        _exact_ids(config, needle)  # source "index": an error, not an empty answer

    report = asyncio.run(sync_tenant(tenant, config.data_dir))
    assert "cannot be read" in report.reason
    assert tenant_status(tenant, config.data_dir).problems == ()
    assert _exact_ids(config, needle) == found


def test_an_altered_vocabulary_file_fails_its_checksum(
    synced: tuple[SandboxHandle, Config],
) -> None:
    _, config = synced
    vocabulary = _vocabulary_file(config)
    data = bytearray(vocabulary.read_bytes())
    data[0:3] = b"zzz"  # same length, different bytes
    vocabulary.write_bytes(bytes(data))
    problems = tenant_status(config.tenants[0], config.data_dir).problems
    assert any("checksum" in problem for problem in problems), problems
