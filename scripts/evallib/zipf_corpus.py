"""Sandbox corpora whose text follows a Zipf vocabulary (see :mod:`evallib.zipf_vocabulary`).

The records keep the structure of :mod:`opindex.sandbox.corpus_gen` (projects, people,
statuses, activities, wiki pages, meetings with agendas; corpus format version 1, nothing
added), but their words come from a vocabulary of millions of types: each record's title
codeword is a rare word, and every templated sentence is followed by running Zipf text,
several sentences of it in wiki bodies. Deterministic by seed, like the plain generator.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from evallib.zipf_vocabulary import ZipfVocabulary
from opindex.sandbox import corpus_vocabulary as vocab
from opindex.sandbox.corpus_gen import CorpusSize, generate_corpus, write_generated_corpus
from opindex.sandbox.corpus_text import TextFiller

VOCABULARIES = ("templates", "zipf")
"""Values of ``gen_corpus.py --vocabulary``: the plain generator's, or the Zipf one."""
WIKI_RUNNING_SENTENCES = (3, 7)
"""Zipf sentences after each templated sentence of a wiki body (long pages)."""


class ZipfFiller(TextFiller):
    """A :class:`TextFiller` whose codewords and running text come from a Zipf vocabulary."""

    def __init__(self, rng: random.Random, vocabulary: ZipfVocabulary | None = None) -> None:
        super().__init__(rng)
        self.vocabulary = vocabulary or ZipfVocabulary(rng)

    def start_record(self, people: Sequence[str]) -> None:
        super().start_record(people)
        self.codeword = self.vocabulary.rare_word()
        self.deep_codeword = self.vocabulary.rare_word()

    def fill(self, template: str, *, deep: bool = False) -> str:
        text = super().fill(template, deep=deep)
        if not deep and self.rng.random() < 0.25:  # titles: "INC-20391: Fix ..."
            text = f"{self.vocabulary.ticket()}: {text}"
        return text

    def sentences(self, pool: Sequence[str], count: int, *, deep: bool = True) -> list[str]:
        running = WIKI_RUNNING_SENTENCES if pool is vocab.WIKI_SENTENCES else (1, 1)
        out = []
        for sentence in super().sentences(pool, count, deep=deep):
            extra = self.vocabulary.sentences(self.rng.randint(*running))
            out.append(" ".join([sentence, *extra]))
        return out


def generate_zipf_corpus(size: CorpusSize, seed: int = 0) -> dict[str, Any]:
    """A corpus dict (format version 1) with Zipf text; same size and seed, same corpus."""
    return generate_corpus(size, seed, filler=ZipfFiller)


def generate(size: CorpusSize, seed: int, vocabulary: str) -> dict[str, Any]:
    """A corpus with the named vocabulary (one of :data:`VOCABULARIES`)."""
    if vocabulary == "zipf":
        return generate_zipf_corpus(size, seed)
    if vocabulary == "templates":
        return generate_corpus(size, seed)
    raise ValueError(f"unknown vocabulary {vocabulary!r}; choose one of {VOCABULARIES}")


def write_generated(size: CorpusSize, seed: int, vocabulary: str, path: Path) -> int:
    """Generate a corpus with the named vocabulary straight into *path*, record by record
    (the bytes of writing :func:`generate`'s corpus, in constant memory); returns bytes."""
    if vocabulary not in VOCABULARIES:
        raise ValueError(f"unknown vocabulary {vocabulary!r}; choose one of {VOCABULARIES}")
    filler = ZipfFiller if vocabulary == "zipf" else TextFiller
    return write_generated_corpus(size, path, seed, filler=filler)
