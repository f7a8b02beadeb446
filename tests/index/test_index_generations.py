"""Rebuilds: a fresh generation beside the live one, an atomic swap, old ones removed."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from index_fixtures import work_package

from opindex.errors import IndexUnavailableError, InvalidArgumentError, SyncInProgressError
from opindex.index import IndexDirectory, TenantIndex
from opindex.search.query import parse_query


def test_generation_numbers_and_pointer(tmp_path: Path) -> None:
    directory = IndexDirectory(tmp_path / "idx")
    assert directory.current() is None
    assert directory.generations() == []
    first = directory.new_generation()
    second = directory.new_generation()
    assert (first, second) == ("g000001", "g000002")
    directory.publish(second)
    assert directory.current() == "g000002"
    third = directory.new_generation()  # a rebuild in progress, newer than the live one
    assert directory.cleanup() == ["g000001"]
    assert directory.generations() == ["g000002", third]
    with pytest.raises(IndexUnavailableError, match="live generation"):
        directory.discard("g000002")
    directory.discard(third)
    assert directory.generations() == ["g000002"]
    with pytest.raises(IndexUnavailableError):
        directory.publish("g000009")
    with pytest.raises(IndexUnavailableError):
        directory.generation_path("../x")


def test_rebuild_swaps_atomically_while_a_reader_keeps_searching(index_root: Path) -> None:
    live = TenantIndex.create(index_root)
    live.upsert([work_package(i, f"budget old {i}") for i in range(200)])
    live.commit()
    old_generation = live.generation

    reader = TenantIndex(index_root)
    errors: list[BaseException] = []
    seen: list[frozenset[int]] = []
    stop = threading.Event()

    def search_forever() -> None:
        query = parse_query("budgte")
        while not stop.is_set():
            try:
                seen.append(frozenset(r.id for r in reader.candidates(query, "work_package")))
            except BaseException as exc:  # any failure during the swap is a bug
                errors.append(exc)
                return

    thread = threading.Thread(target=search_forever)
    thread.start()
    try:
        fresh = TenantIndex.create_generation(index_root)
        assert fresh.generation != old_generation
        fresh.upsert([work_package(i, f"budget new {i}") for i in range(1000, 1100)])
        fresh.commit()
        # Not yet published: the reader still answers from the old generation.
        assert reader.count("work_package") == 200
        removed = fresh.publish()
        assert removed == [old_generation]
        while not any(ids == frozenset(range(1000, 1100)) for ids in seen[-3:]):
            assert thread.is_alive()
            stop.wait(0.01)
    finally:
        stop.set()
        thread.join()
    assert errors == []
    old, new = frozenset(range(200)), frozenset(range(1000, 1100))
    assert set(seen) <= {old, new}  # every answer came whole from one generation
    assert not (index_root / old_generation).exists()
    assert live.count("work_package") == 100  # the old handle followed CURRENT too
    assert live.generation == fresh.generation


def test_a_failed_rebuild_is_discarded_and_the_live_index_is_untouched(index_root: Path) -> None:
    live = TenantIndex.create(index_root)
    live.upsert([work_package(1, "kept")])
    live.commit()
    fresh = TenantIndex.create_generation(index_root)
    fresh.upsert([work_package(2, "half written")])
    fresh.discard()
    assert IndexDirectory(index_root).generations() == [live.generation]
    assert live.all_ids("work_package") == [1]


def test_publish_rules(index_root: Path) -> None:
    live = TenantIndex.create(index_root)
    with pytest.raises(InvalidArgumentError, match="pinned"):
        live.publish()
    fresh = TenantIndex.create_generation(index_root)
    fresh.upsert([work_package(1, "x")])
    with pytest.raises(InvalidArgumentError, match="commit"):
        fresh.publish()
    fresh.commit()
    fresh.publish()
    assert live.all_ids("work_package") == [1]


def test_rebuild_and_incremental_writer_do_not_block_each_other_across_generations(
    index_root: Path,
) -> None:
    live = TenantIndex.create(index_root)
    live.upsert([work_package(1, "live")])
    fresh = TenantIndex.create_generation(index_root)
    fresh.upsert([work_package(2, "fresh")])  # another directory, another lock
    with pytest.raises(SyncInProgressError):
        TenantIndex(index_root).upsert([work_package(3, "x")])
    live.commit()
    fresh.commit()
    fresh.publish()
    assert live.all_ids("work_package") == [2]
