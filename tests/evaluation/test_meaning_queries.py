"""The paraphrase set of the meaning evaluation: enough queries, no title word, real targets."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from evallib.paraphrases import load_paraphrases, plain_title, shared_title_words
from evallib.zipf_corpus import write_generated
from opindex.sandbox.corpus_gen import CorpusSize, with_publications
from opindex.sandbox.sample_corpus import sample_corpus_path

TITLE_KEYS = {
    "work_package": ("work_packages", "subject"),
    "wiki_page": ("wiki_pages", "title"),
    "meeting": ("meetings", "title"),
    "news": ("news", "title"),
    "document": ("documents", "title"),
    "version": ("versions", "name"),
}


def test_the_set_is_large_enough_and_covers_both_corpora_and_splits() -> None:
    _, queries = load_paraphrases()
    splits = Counter(q.split for q in queries)
    assert splits["queries"] >= 60 and splits["held_out"] >= 20
    assert {q.corpus for q in queries} == {"sample", "template"}
    assert len({(q.corpus, q.query) for q in queries}) == len(queries)  # no repeats


def test_no_query_holds_a_word_of_its_targets_title() -> None:
    _, queries = load_paraphrases()
    clashes = {q.query: shared_title_words(q.query, q.title) for q in queries}
    assert {query: found for query, found in clashes.items() if found} == {}


@pytest.mark.parametrize(
    ("query", "title", "clash"),
    [
        ("SSL cert expires", "Renew TLS certificate", ("cert", "certificate")),
        ("localise for Germany", "Translate into German", ("germany", "german")),
        ("the zurich office", "Onboard Zürich Mobility", ("zurich", "zurich")),
        ("securing uploads", "Security policy", ("securing", "security")),
    ],
)
def test_the_title_word_rule_catches_variants(
    query: str, title: str, clash: tuple[str, str]
) -> None:
    assert clash in shared_title_words(query, title)
    assert shared_title_words("how to do it", "How we run sprint reviews") == []


def test_every_target_exists_in_its_corpus(tmp_path: Path) -> None:
    settings, queries = load_paraphrases()
    template = settings["template"]
    path = tmp_path / "template.json"
    size = CorpusSize.proportional(template["work_packages"])
    if template["publications"]:
        size = with_publications(size)
    write_generated(size, template["seed"], "templates", path)
    corpora = {
        "sample": json.loads(sample_corpus_path().read_text(encoding="utf-8")),
        "template": json.loads(path.read_text(encoding="utf-8")),
    }
    missing = []
    for q in queries:
        key, field = TITLE_KEYS[q.kind]
        titles = {plain_title(record[field]) for record in corpora[q.corpus][key]}
        if q.title not in titles:
            missing.append((q.corpus, q.kind, q.title))
    assert missing == []
