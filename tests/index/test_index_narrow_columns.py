"""Filter columns and record ids stored in narrow types (DECISIONS D150): the narrowest
signed type whose minimum stands for MISSING, read back, merged, and damage reported."""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path

import numpy as np
import pytest
from index_fixtures import work_package

from opindex.engine.analysis_segment import MAGIC
from opindex.engine.analysis_store import DIRECTORY, MANIFEST, MAX_SEGMENTS, _Files
from opindex.engine.filters import FILTER_COLUMNS, MISSING, filter_mask, narrow_column, widen_column
from opindex.errors import IndexDamagedError
from opindex.index import IndexFilters, TenantIndex
from opindex.search.query import parse_query


@pytest.mark.parametrize(
    ("values", "dtype"),
    [
        ([1, 2, MISSING, 127], "int8"),
        ([0, 1, MISSING], "int8"),
        ([-127, 5], "int8"),
        ([-128, 5], "int16"),  # -128 stands for MISSING in int8
        ([128, MISSING], "int16"),
        ([70_000, 3, MISSING], "int32"),
        ([1_700_000_000_000_000, 0], "int64"),
        ([MISSING, MISSING], "int8"),
        ([], "int8"),
    ],
)
def test_a_column_is_narrowed_and_widened_back(values: list[int], dtype: str) -> None:
    column = np.array(values, dtype=np.int64)
    narrow = narrow_column(column)
    assert narrow.dtype == np.dtype(dtype)
    assert widen_column(narrow).tolist() == values


def test_filters_over_narrow_columns_agree_with_int64_columns() -> None:
    rng = random.Random(5)
    wide = {
        name: np.array(
            [MISSING if rng.random() < 0.2 else rng.randint(0, top) for _ in range(300)],
            dtype=np.int64,
        )
        for name, top in zip(FILTER_COLUMNS, (3, 200, 40_000, 9, 100_000, 1, 10**15), strict=True)
    }
    narrow = {name: narrow_column(column) for name, column in wide.items()}
    assert {c.dtype.itemsize for c in narrow.values()} == {1, 2, 4, 8}
    cases = [
        IndexFilters(project_ids=(0, 2, 300, 2**40)),
        IndexFilters(status="open"),
        IndexFilters(status="closed"),
        IndexFilters(status=(5, 150, 70_000)),
        IndexFilters(type_ids=(1, 39_999)),
        IndexFilters(assignee_ids=(None,)),
        IndexFilters(assignee_ids=(None, 3, -128)),
        IndexFilters(author_ids=(7, 99_999)),
    ]
    for filters in cases:
        expected, got = filter_mask(wide, filters), filter_mask(narrow, filters)
        assert expected is not None and got is not None
        assert got.tolist() == expected.tolist(), filters


def _segment(index: TenantIndex) -> Path:
    root = index.directory.generation_path(index.generation) / DIRECTORY
    return next(root.glob("work_package-*.bin"))


def _header(path: Path) -> tuple[bytearray, int, dict[str, object]]:
    data = bytearray(path.read_bytes())
    length = int.from_bytes(data[len(MAGIC) : len(MAGIC) + 8], "little")
    start = len(MAGIC) + 8
    return data, length, json.loads(data[start : start + length])


def test_segments_of_different_widths_merge_with_missing_kept(tmp_path: Path) -> None:
    index = TenantIndex.create(tmp_path / "index")
    index.upsert([work_package(1, "budget", assignee_id=None, project_id=3)])
    index.commit()
    _, _, header = _header(_segment(index))
    arrays = header["arrays"]
    assert isinstance(arrays, dict)
    assert (arrays["assignee_id"][0], arrays["project_id"][0], arrays["ids"][0]) == (
        "|i1",
        "|i1",
        "<u2",
    )
    for record_id in range(2, 3 + MAX_SEGMENTS):  # enough commits to merge
        assignee = None if record_id % 2 else 40_000 + record_id
        index.upsert([work_package(record_id, "budget", assignee_id=assignee, project_id=3)])
        index.commit()
    manifest = json.loads((_segment(index).parent / MANIFEST).read_text(encoding="utf-8"))
    assert len(manifest["kinds"]["work_package"]) < MAX_SEGMENTS  # merged
    query = parse_query("budget")
    unassigned = index.ranked(query, "work_package", IndexFilters(assignee_ids=(None,)))[0]
    assert sorted(r.id for r in unassigned) == [1, *range(3, 3 + MAX_SEGMENTS, 2)]
    assigned = index.ranked(query, "work_package", IndexFilters(assignee_ids=(40_004,)))[0]
    assert [r.id for r in assigned] == [4]


def _rewritten(path: Path, edit: dict[str, str | int]) -> dict[str, object]:
    """Change array entries (dtype or length) in *path*'s header; the manifest entry that
    matches the changed file (as if the damage had happened before it was hashed)."""
    data, length, header = _header(path)
    arrays = header["arrays"]
    assert isinstance(arrays, dict)
    for key, value in edit.items():
        name, field = key.split(".")
        arrays[name][0 if field == "dtype" else 1] = value
    body = json.dumps(header, separators=(",", ":")).encode("utf-8")
    assert len(body) <= length
    start = len(MAGIC) + 8
    data[start : start + length] = body.ljust(length)
    path.write_bytes(bytes(data))
    sha256 = hashlib.sha256(bytes(data)).hexdigest()
    return {"name": path.name, "size": len(data), "sha256": sha256}


@pytest.mark.parametrize(
    ("edit", "reason"),
    [
        ({"assignee_id.dtype": "<f8"}, "stored as <f8"),
        ({"project_id.dtype": "|u1"}, "stored as |u1"),
        ({"ids.dtype": "<f2"}, "stored as <f2"),
        ({"author_id.count": 1 << 30}, "runs past the end"),
        ({"type_id.dtype": "<x9"}, "unknown type"),
    ],
)
def test_a_column_of_the_wrong_type_or_length_is_damage(
    tmp_path: Path, edit: dict[str, str | int], reason: str
) -> None:
    index = TenantIndex.create(tmp_path / "index")
    index.upsert([work_package(1, "budget", assignee_id=5)])
    index.commit()
    segment = _segment(index)
    entry = _rewritten(segment, edit)
    with pytest.raises(IndexDamagedError, match=reason):
        _Files(segment.parent).segment(entry)


@pytest.mark.parametrize(("form", "dtype"), [("token_words", "<u4"), ("posting_tokens", "<f4")])
def test_token_ids_stored_as_a_narrow_bitmap_or_a_float_list_are_damage(
    tmp_path: Path, form: str, dtype: str
) -> None:
    # DECISIONS D181: a segment holds its token ids as a bitmap of 64-bit words where that is
    # smaller (5,000 ids: 79 words), else as a list (a few ids of a small later commit)
    index = TenantIndex.create(tmp_path / "index")
    index.upsert([work_package(1, " ".join(f"w{i}" for i in range(5_000)))])
    index.commit()
    index.upsert([work_package(2, "w7")])
    index.commit()
    root = _segment(index).parent
    manifest = json.loads((root / MANIFEST).read_text(encoding="utf-8"))
    segments = [root / entry["name"] for entry in manifest["kinds"]["work_package"]]
    holding = [path for path in segments if form in str(_header(path)[2]["arrays"])]
    assert len(segments) == 2 and len(holding) == 1
    entry = _rewritten(holding[0], {f"{form}.dtype": dtype})
    with pytest.raises(IndexDamagedError, match=f"array {form} is stored as {dtype}"):
        _Files(holding[0].parent).segment(entry)
