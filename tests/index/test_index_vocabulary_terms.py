"""The analysis store's vocabulary holds each token of every committed record once, with
two writers taking turns, rollbacks and deletes; substring look-ups see all of them."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from index_fixtures import work_package

from opindex.index import TenantIndex
from opindex.search import token_texts
from opindex.search.query import parse_query

WORDS = ["deploy", "deployment", "deploying", "deployments", "approval", "approvals",
         "approximately", "cafe", "budget", "budgeting", "müllerstraße", "a", "be"]  # fmt: skip


@pytest.mark.parametrize("seed", range(4))
def test_every_token_is_listed_once(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    root = tmp_path / "index"
    indexes = [TenantIndex.create(root), TenantIndex(root)]  # two writers, taking turns
    committed: set[str] = set()
    for commit in range(12):
        index = rng.choice(indexes)
        pending: set[str] = set()
        for _ in range(rng.randint(1, 3)):
            text = " ".join(rng.sample(WORDS, k=rng.randint(1, 4)))
            index.upsert([work_package(rng.randint(1, 20), text)])
            pending.update(token_texts(text))
        if rng.random() < 0.3:
            index.delete("work_package", [rng.randint(1, 20)])
        if rng.random() < 0.2:
            index.rollback()  # none of its new tokens is kept
        else:
            index.commit()
            committed |= pending
        terms = TenantIndex(root).vocabulary().find("", limit=None)
        assert terms is not None
        assert len(terms) == len(set(terms)), commit  # each term once
        assert set(terms) == committed, commit


def test_a_reader_finds_substrings_of_the_newest_commit(tmp_path: Path) -> None:
    root = tmp_path / "index"
    writer, reader = TenantIndex.create(root), TenantIndex(root)
    substring = parse_query("ployme", "exact")
    assert list(reader.candidates(substring, "work_package")) == []
    writer.upsert([work_package(1, "deployment plan")])
    writer.commit()
    assert [r.id for r in reader.candidates(substring, "work_package")] == [1]
    writer.delete("work_package", [1])
    writer.upsert([work_package(2, "redeployments")])
    writer.commit()
    found = reader.candidates(substring, "work_package")
    assert [r.id for r in found] == [2] and found.total == 1
