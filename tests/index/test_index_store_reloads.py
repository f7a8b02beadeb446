"""The reader is reloaded on its own commit every few store reads (Tantivy's block cache)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import tantivy
from index_fixtures import work_package

from opindex.index import TenantIndex, generation_index
from opindex.index.generation_index import STORE_READS_PER_RELOAD, GenerationIndex, Snapshot


class CountingIndex:
    """A tantivy.Index that counts its reloads."""

    def __init__(self, index: tantivy.Index) -> None:
        self._index = index
        self.reloads = 0

    def reload(self) -> None:
        self.reloads += 1
        self._index.reload()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._index, name)


@pytest.fixture
def opened(index: TenantIndex) -> Iterator[tuple[GenerationIndex, CountingIndex]]:
    index.upsert(work_package(n, f"budget {n}") for n in range(1, 3 * STORE_READS_PER_RELOAD))
    index.commit()
    uncached = TenantIndex(index.directory, record_cache=0)  # every record read reads the store
    generation = uncached._generation()
    counting = CountingIndex(generation.index)
    generation.index = counting  # type: ignore[assignment]
    yield generation, counting
    uncached.close()


def addresses(snap: Snapshot) -> list[tantivy.DocAddress]:
    return [address for _, address in snap.searcher.search(tantivy.Query.all_query(), 100).hits]


def test_every_16_store_reads_reload_the_reader_on_the_same_commit(
    opened: tuple[GenerationIndex, CountingIndex],
) -> None:
    generation, counting = opened
    assert STORE_READS_PER_RELOAD == 16
    snap = generation.snapshot()
    before = [snap.record(address).id for address in addresses(snap)]
    assert len(before) == 3 * STORE_READS_PER_RELOAD - 1
    assert counting.reloads == 2  # after the 16th and the 32nd read, not after the 47th
    later = generation.snapshot()
    assert later.reload_count == snap.reload_count  # the same commit: the same addresses
    assert later.records is snap.records
    assert [later.record(address).id for address in addresses(snap)] == before


def test_a_commit_not_yet_verified_is_left_to_refresh(
    opened: tuple[GenerationIndex, CountingIndex], monkeypatch: pytest.MonkeyPatch
) -> None:
    generation, counting = opened
    snap = generation.snapshot()
    monkeypatch.setattr(generation_index, "_meta_stamp", lambda path: (0, 0, 0))
    for address in addresses(snap)[:STORE_READS_PER_RELOAD]:
        snap.record(address)
    assert counting.reloads == 0


def test_a_commit_landing_during_the_reload_is_verified_before_a_snapshot_sees_it(
    opened: tuple[GenerationIndex, CountingIndex], monkeypatch: pytest.MonkeyPatch
) -> None:
    generation, counting = opened
    snap = generation.snapshot()
    current = generation_index._meta_stamp(generation.path)
    stamps = iter([current, (1, 2, 3)])  # before the reload, then after it
    monkeypatch.setattr(generation_index, "_meta_stamp", lambda path: next(stamps))
    verified: list[Path] = []
    monkeypatch.setattr(
        generation_index, "check_integrity", lambda path, seen: verified.append(path)
    )
    for address in addresses(snap)[:STORE_READS_PER_RELOAD]:
        snap.record(address)
    assert verified == [generation.path]
    assert counting.reloads == 2  # the bare one, then the one after the verification
    later = generation.snapshot()
    assert later.reload_count == snap.reload_count + 1  # a new commit: new addresses
    assert later.records is not snap.records


class VanishingIndex(CountingIndex):
    """A tantivy.Index whose generation is removed by a rebuild as the reload starts."""

    def __init__(self, index: tantivy.Index, meta: Path) -> None:
        super().__init__(index)
        self._meta = meta
        self.fail = False

    def reload(self) -> None:
        self._meta.unlink(missing_ok=True)  # what removing the old generation does first
        if self.fail:
            raise ValueError("Failed to open file for read: 'meta.json'")
        super().reload()


@pytest.mark.parametrize("fail", [False, True], ids=["reload-then-gone", "gone-reload-fails"])
def test_a_generation_removed_during_the_reload_keeps_answering(
    opened: tuple[GenerationIndex, CountingIndex], fail: bool
) -> None:
    generation, _ = opened
    vanishing = VanishingIndex(generation.index._index, generation.path / "meta.json")  # type: ignore[attr-defined]
    vanishing.fail = fail
    generation.index = vanishing  # type: ignore[assignment]
    snap = generation.snapshot()
    ids = [snap.record(address).id for address in addresses(snap)]  # 47 reads: 2 reloads
    assert sorted(ids) == list(range(1, 3 * STORE_READS_PER_RELOAD))
    assert not (generation.path / "meta.json").exists()
