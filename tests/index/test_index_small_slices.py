"""Vocabulary slices below ``STORED_INDEX_TOKENS`` are stored as text alone (DECISIONS
D183): the reader builds their trigram index at the first look-up and answers the same;
larger ones store it, their short posting lists deflated (D185)."""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path
from typing import Any

import pytest
from index_fixtures import work_package

from opindex.engine import analysis_writer, trigram_postings
from opindex.engine.analysis_segment import MAGIC
from opindex.engine.analysis_store import DIRECTORY, MANIFEST, _Files
from opindex.engine.trigram_postings import STORED_ARRAYS
from opindex.errors import IndexDamagedError
from opindex.index import TenantIndex
from opindex.records import Record
from opindex.search.fields import rank_documents
from opindex.search.query import parse_query

QUERIES = ("budget", "budgte", "budg*", "invoic", "quarterly review", "revew", "w1234", "zzz")


def _records() -> list[Record]:
    rng = random.Random(5)
    words = ["budget", "invoice", "quarterly", "review", "vendor", "budgets", "invoicing"]
    return [
        work_package(
            i,
            rng.choice(words),
            " ".join(rng.choice(words) + f" w{rng.randrange(3000)}" for _ in range(30)),
        )
        for i in range(1, 60)
    ]


def _vocabulary_arrays(index: TenantIndex) -> list[set[str]]:
    root = index.directory.generation_path(index.generation) / DIRECTORY
    manifest = json.loads((root / MANIFEST).read_text(encoding="utf-8"))
    found = []
    for entry in manifest["vocabulary"]:
        data = (root / entry["name"]).read_bytes()
        length = int.from_bytes(data[len(MAGIC) : len(MAGIC) + 8], "little")
        header = json.loads(data[len(MAGIC) + 8 : len(MAGIC) + 8 + length])
        found.append(set(header["arrays"]))
    return found


def _ranked(index: TenantIndex, text: str) -> list[tuple[int, float]]:
    found, scores, _ = index.ranked(parse_query(text), "work_package", limit=10_000)
    return [(r.id, s) for r, s in zip(found, scores, strict=True)]


def test_a_small_slice_is_stored_as_text_and_answers_as_a_stored_index(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    records = _records()
    small = TenantIndex.create(tmp_path / "small")
    small.upsert(records)
    small.commit()
    assert _vocabulary_arrays(small) == [{"text"}]
    monkeypatch.setattr(analysis_writer, "STORED_INDEX_TOKENS", 1)
    stored = TenantIndex.create(tmp_path / "stored")
    stored.upsert(records)
    stored.commit()
    assert _vocabulary_arrays(stored) == [{"text", *STORED_ARRAYS}]
    monkeypatch.setattr(trigram_postings, "DEFLATED_LIST_ENTRIES", 8)  # lists stored in both forms
    mixed = TenantIndex.create(tmp_path / "mixed")
    mixed.upsert(records)
    mixed.commit()
    reopened = TenantIndex(tmp_path / "small")  # a new reader builds the index again
    for text in QUERIES:
        want = [
            (r.record.id, r.score)
            for r in rank_documents(
                [r.document for r in records], parse_query(text), "work_package"
            )
        ]
        assert _ranked(small, text) == _ranked(stored, text) == _ranked(reopened, text) == want
        assert _ranked(TenantIndex(tmp_path / "mixed"), text) == want


@pytest.mark.parametrize(
    ("edit", "error"),
    [
        (lambda arrays: arrays.pop("postings"), "holds only part of its trigram index"),
        (lambda arrays: arrays.pop("deflated_offsets"), "holds only part of its trigram"),
        (lambda arrays: arrays["deflated"].__setitem__(1, arrays["deflated"][1] - 1),
         "has posting lists out of bounds"),
        (lambda arrays: arrays["offsets"].__setitem__(1, arrays["offsets"][1] - 1),
         "has posting lists out of bounds"),
    ],
    ids=["no postings", "no deflated offsets", "deflated cut short", "offsets cut short"],
)  # fmt: skip
def test_a_slice_holding_part_of_its_trigram_index_is_damage(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, edit: Any, error: str
) -> None:
    monkeypatch.setattr(analysis_writer, "STORED_INDEX_TOKENS", 1)
    monkeypatch.setattr(trigram_postings, "DEFLATED_LIST_ENTRIES", 8)  # both kinds of list stored
    index = TenantIndex.create(tmp_path / "index")
    index.upsert(_records())
    index.commit()
    root = index.directory.generation_path(index.generation) / DIRECTORY
    entry = json.loads((root / MANIFEST).read_text(encoding="utf-8"))["vocabulary"][0]
    path = root / entry["name"]
    data = bytearray(path.read_bytes())
    length = int.from_bytes(data[len(MAGIC) : len(MAGIC) + 8], "little")
    start = len(MAGIC) + 8
    header = json.loads(data[start : start + length])
    edit(header["arrays"])  # an array's [dtype, count, offset] in the header
    data[start : start + length] = json.dumps(header).encode("utf-8").ljust(length)
    path.write_bytes(bytes(data))
    damaged = {**entry, "size": len(data), "sha256": hashlib.sha256(bytes(data)).hexdigest()}
    with pytest.raises(IndexDamagedError, match=error):
        _Files(root).vocabulary(damaged)
