"""Random bytes at random positions of a generation's files: never a traceback or a Rust
panic on stderr, never a wrong record; either the exact pristine answers or a clear
error, and an IndexDamagedError (with the repair) whenever a checked file changed."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.index.index_fixtures import meeting, wiki_page, work_package

from opindex.disclosure import public_detail
from opindex.errors import IndexDamagedError, IndexUnavailableError
from opindex.index import TenantIndex
from opindex.index.checksums import CHECKSUMS_FILE
from opindex.search.document import KINDS
from opindex.search.query import parse_query

QUERIES = ("alpha", "gama", "delt", "planning", "zebra stripes", "", "ta")  # "ta": a substring
EXISTENCE_ONLY = {".managed.json"}  # checked otherwise (module docs)


@dataclass(frozen=True)
class Pristine:
    root: Path
    generation: str
    files: tuple[str, ...]
    answers: dict[str, Any]
    garbage: frozenset[str]  # analysis files a merge replaced: removed at the next commit


def read_everything(index: TenantIndex) -> dict[str, Any]:
    """Every answer the fuzz compares: ids, whole records, candidates of some queries."""
    answers: dict[str, Any] = {}
    for kind in KINDS:
        ids = index.all_ids(kind)
        answers[f"ids:{kind}"] = ids
        answers[f"count:{kind}"] = index.count(kind)
        answers[f"records:{kind}"] = [index.get(kind, record_id) for record_id in ids]
        for query in QUERIES:
            found = index.candidates(parse_query(query), kind)
            answers[f"candidates:{kind}:{query}"] = [(r.document.kind, r.id) for r in found]
    answers["terms"] = index.vocabulary().size
    return answers


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Pristine]:
    root = tmp_path_factory.mktemp("damage-fuzz") / "index"
    with TenantIndex.create(root) as index:
        index.upsert(
            work_package(i, f"alpha planning {i}", f"gamma delta notes {i}") for i in range(1, 41)
        )
        index.commit()
        index.upsert([wiki_page(i, f"Zebra stripes {i}", "planning guide") for i in range(1, 9)])
        index.upsert([meeting(i, f"Delta weekly {i}", ["alpha agenda"]) for i in range(1, 6)])
        index.delete("work_package", [3, 7])
        index.commit()
        generation = index.generation
        answers = read_everything(index)
    directory = root / generation
    files = tuple(
        sorted(
            str(p.relative_to(directory))
            for p in [*directory.iterdir(), *(directory / "analysis").iterdir()]
            if p.is_file()
        )
    )
    manifest = json.loads((directory / "analysis" / "manifest.json").read_text(encoding="utf-8"))
    garbage = frozenset(f"analysis/{name}" for name in manifest["garbage"])
    assert garbage  # the second commit merged the work packages' segments (D167)
    yield Pristine(root, generation, files, answers, garbage)


writes = st.lists(
    st.tuples(
        st.integers(min_value=0, max_value=10_000),  # which file (modulo their number)
        st.floats(min_value=0.0, max_value=1.05),  # where, as a fraction of its size
        st.binary(min_size=1, max_size=64),
    ),
    min_size=1,
    max_size=4,
)


@settings(
    max_examples=80,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(damage=writes)
def test_random_bytes_never_give_a_wrong_record_or_a_panic(
    pristine: Pristine,
    tmp_path_factory: pytest.TempPathFactory,
    capfd: pytest.CaptureFixture[str],
    damage: list[tuple[int, float, bytes]],
) -> None:
    root = tmp_path_factory.mktemp("damaged") / "index"
    shutil.copytree(pristine.root, root)
    generation = root / pristine.generation
    changed: set[str] = set()
    for which, where, data in damage:
        name = pristine.files[which % len(pristine.files)]
        path = generation / name
        before = path.read_bytes()
        position = min(int(where * len(before)), len(before))
        with open(path, "r+b") as handle:
            handle.seek(position)
            handle.write(data)
        if path.read_bytes() != before:
            changed.add(name)
    capfd.readouterr()

    try:
        with TenantIndex(root) as index:
            answers = read_everything(index)
    except IndexUnavailableError as error:  # the only failure allowed: a clear one
        message = str(error)
        assert "index" in message and "Traceback" not in message
        if isinstance(error, IndexDamagedError):
            assert "opindex rebuild" in message and "next sync" in message
            assert "damaged" in public_detail(error) and "rebuilds it" in public_detail(error)
    else:
        assert answers == pristine.answers, sorted(changed)  # never a wrong record
        # checked changes never pass; a change inside the checksum list may be harmless
        # (the digest of a file only checked for existence)
        assert not changed - EXISTENCE_ONLY - pristine.garbage - {CHECKSUMS_FILE}, sorted(changed)

    if changed - EXISTENCE_ONLY - pristine.garbage - {CHECKSUMS_FILE}:  # checked: found
        with pytest.raises(IndexDamagedError) as found, TenantIndex(root) as again:
            again.count("work_package")
            for kind in KINDS:  # analysis segments are checked when first read
                again.candidates(parse_query("alpha"), kind)
        # a damaged checksum list shows as a mismatch of whichever file it describes
        assert found.value.file in changed or CHECKSUMS_FILE in changed
    output = capfd.readouterr()
    assert "panicked" not in output.err and "Traceback" not in output.err, output.err


@pytest.mark.parametrize("suffix", [".idx", ".store", ".term", ".fast", ".pos", ".fieldnorm"])
def test_damage_under_an_open_reader_is_caught_and_recorded(
    pristine: Pristine, tmp_path: Path, suffix: str
) -> None:
    """Damage after the reader checked the files (bit rot, a stray write): whatever
    Tantivy then does — an error, a panic — ends as an IndexUnavailableError, never as a
    wrong record, and once it is diagnosed every later read is refused up front."""
    root = tmp_path / "index"
    shutil.copytree(pristine.root, root)
    generation = root / pristine.generation
    with TenantIndex(root) as index:
        assert read_everything(index) == pristine.answers  # opened and checked
        for path in generation.iterdir():
            if path.suffix == suffix:
                data = bytearray(path.read_bytes())
                for position in range(len(data) // 8, len(data) // 2):
                    data[position] ^= 0xA5
                with open(path, "r+b") as handle:  # in place, under the open reader
                    handle.write(bytes(data))
        try:
            answers = read_everything(index)
        except IndexUnavailableError:
            pass
        else:  # what Tantivy had already loaded may still answer, but only correctly
            assert answers == pristine.answers
    with pytest.raises(IndexDamagedError) as found, TenantIndex(root) as reopened:
        reopened.count("work_package")
    assert found.value.file is not None and found.value.file.endswith(suffix)
