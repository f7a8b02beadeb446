"""Generated news, documents, versions, posts and attachments: optional, valid, deterministic."""

from __future__ import annotations

import json
from pathlib import Path

from opindex.sandbox.corpus_check import parse_corpus
from opindex.sandbox.corpus_gen import (
    CorpusSize,
    corpus_bytes,
    generate_corpus,
    with_publications,
    write_generated_corpus,
)

NEW_KINDS = ("news", "documents", "versions", "posts", "attachments")


def test_the_optional_kinds_are_off_by_default() -> None:
    corpus = generate_corpus(CorpusSize.proportional(120), seed=4)
    assert not set(NEW_KINDS) & set(corpus)


def test_they_leave_the_other_kinds_unchanged_and_pass_the_checks(tmp_path: Path) -> None:
    base = CorpusSize.proportional(400)
    size = with_publications(base, documents=5)
    assert (size.news, size.documents, size.versions, size.posts) == (9, 5, 6, 6)
    assert size.attachments == (400 + 20) // 10
    corpus = generate_corpus(size, seed=4)
    plain = generate_corpus(base, seed=4)
    assert {k: v for k, v in corpus.items() if k not in NEW_KINDS} == plain
    parsed = parse_corpus(json.loads(corpus_bytes(corpus)))
    assert len(parsed.attachments) == 42 and len(parsed.news) == 9
    formats = {a.generate.format for a in parsed.attachments if a.generate is not None}
    assert formats == {"pdf", "docx", "text"}
    kinds = {a.container.kind for a in parsed.attachments}
    assert kinds == {"work_packages", "wiki_pages"}
    streamed = tmp_path / "streamed.json"
    write_generated_corpus(size, streamed, seed=4)
    assert streamed.read_bytes() == corpus_bytes(corpus)
    assert corpus_bytes(generate_corpus(size, seed=4)) == corpus_bytes(corpus)
