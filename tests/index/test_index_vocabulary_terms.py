"""vocabulary.txt holds each term of every indexed token once, cut as Tantivy cuts it,
though its writer keeps no set of the terms (D170)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from index_fixtures import work_package

from opindex.index import TenantIndex, schema
from opindex.index.vocabulary_file import VOCABULARY_FILE
from opindex.search import token_texts

WORDS = ["deploy", "deployment", "deploying", "deployments", "approval", "approvals",
         "approximately", "cafe", "budget", "budgeting", "müllerstraße", "a", "be"]  # fmt: skip
CUT = 6


def _terms(index: TenantIndex) -> list[str]:
    path = index.directory.generation_path(index.generation) / VOCABULARY_FILE
    return [t for t in path.read_text(encoding="utf-8").split("\n") if t]


@pytest.mark.parametrize("seed", range(4))
def test_every_token_is_listed_once_and_cut(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seed: int
) -> None:
    monkeypatch.setattr(schema, "MAX_TOKEN_CHARS", CUT)  # tokens of 6 letters and more are cut
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
            index.rollback()  # nothing of it reaches the file
        else:
            index.commit()
            committed |= pending
        terms = _terms(TenantIndex(root))
        assert len(terms) == len(set(terms)), commit  # each term once
        assert set(terms) == {token[:CUT] for token in committed}, commit
    assert any(len(token) > CUT for token in committed)  # some were cut
