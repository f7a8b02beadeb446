"""The Zipf corpus mode: a heavy-tailed vocabulary, deterministic, loadable by the sandbox."""

from __future__ import annotations

import json
import math
import random
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from tests.support.sandbox import running_sandbox

from evallib.corpus_view import corpus_items
from evallib.zipf_corpus import generate, generate_zipf_corpus, write_generated
from evallib.zipf_vocabulary import CLASS_SIZES, COMMON_WORDS, ZipfVocabulary, word_of_rank
from opindex.sandbox.corpus_check import load_corpus_file, parse_corpus
from opindex.sandbox.corpus_gen import ADMIN_KEY, CorpusSize, corpus_bytes, write_corpus
from opindex.search.tokenizer import token_texts

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "gen_corpus.py"


def token_counts(corpus: dict[str, Any]) -> Counter[str]:
    """Tokens of every indexed field of every record, as the product tokenizes them."""
    counts: Counter[str] = Counter()
    for item in corpus_items(corpus):
        for values in item.fields.values():
            for value in values:
                counts.update(token_texts(value))
    return counts


@pytest.fixture(scope="module")
def small() -> dict[str, Any]:
    return generate_zipf_corpus(CorpusSize.proportional(150), seed=4)


@pytest.fixture(scope="module")
def larger() -> dict[str, Any]:
    return generate_zipf_corpus(CorpusSize.proportional(1200), seed=4)


def test_same_seed_same_bytes_other_seed_other_bytes() -> None:
    size = CorpusSize.proportional(40)
    first = corpus_bytes(generate_zipf_corpus(size, seed=9))
    assert first == corpus_bytes(generate_zipf_corpus(size, seed=9))
    assert first != corpus_bytes(generate_zipf_corpus(size, seed=10))
    assert first != corpus_bytes(generate(size, 9, "templates"))


def test_unknown_vocabulary_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown vocabulary 'tiny'"):
        generate(CorpusSize.proportional(5), 1, "tiny")
    with pytest.raises(ValueError, match="unknown vocabulary 'tiny'"):
        write_generated(CorpusSize.proportional(5), 1, "tiny", tmp_path / "x.json")
    assert not (tmp_path / "x.json").exists()


@pytest.mark.parametrize("vocabulary", ["zipf", "templates"])
@pytest.mark.parametrize(
    "size", [CorpusSize.proportional(60), CorpusSize(7, 0, 0, 1), CorpusSize(0, 3, 2, 2)]
)
def test_streamed_corpus_has_the_bytes_of_the_generated_one(
    tmp_path: Path, vocabulary: str, size: CorpusSize
) -> None:
    path = tmp_path / "streamed.json"
    written = write_generated(size, 8, vocabulary, path)
    expected = corpus_bytes(generate(size, 8, vocabulary))
    assert path.read_bytes() == expected
    assert written == len(expected)


def test_distinct_tokens_grow_sublinearly_like_heaps_law(
    small: dict[str, Any], larger: dict[str, Any]
) -> None:
    few, many = token_counts(small), token_counts(larger)
    token_growth = sum(many.values()) / sum(few.values())
    type_growth = len(many) / len(few)
    assert 6 < token_growth < 10  # 8x the work packages, about 8x the text
    # Heaps' law V = K n^beta with beta around 0.5-0.75 for natural text: the vocabulary
    # keeps growing (a template corpus would stall at a few hundred words) but slower
    # than the text does.
    beta = math.log(type_growth) / math.log(token_growth)
    assert 0.45 < beta < 0.8, (len(few), len(many), beta)
    assert len(many) > 20_000
    hapaxes = sum(1 for count in many.values() if count == 1)
    assert hapaxes / len(many) > 0.4  # the long tail: most types occur once


def test_top_token_share_and_rank_frequency_slope(larger: dict[str, Any]) -> None:
    counts = token_counts(larger)
    total = sum(counts.values())
    ranked = [count for _, count in counts.most_common()]
    assert 0.04 < ranked[0] / total < 0.12  # "the" is ~6-7 % of English running text
    # log-log slope of frequency against rank over the core vocabulary: about -1 (Zipf).
    xs = [math.log(rank) for rank in range(10, 1000)]
    ys = [math.log(ranked[rank - 1]) for rank in range(10, 1000)]
    mean_x, mean_y = sum(xs) / len(xs), sum(ys) / len(ys)
    slope = sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys, strict=True)) / sum(
        (x - mean_x) ** 2 for x in xs
    )
    assert -1.3 < slope < -0.7, slope


def test_text_holds_names_identifiers_hosts_versions_typos_and_long_wiki_pages(
    larger: dict[str, Any],
) -> None:
    items = corpus_items(larger)
    text = "\n".join(value for item in items for values in item.fields.values() for value in values)
    assert len(re.findall(r"\b(?:INC|CHG|PRB|REQ|SEC|OPS|BUG|RFC)-\d{4,5}\b", text)) > 500
    assert len(re.findall(r"\b[a-z]+-[a-z]+-\d\d\.[a-z]+\.example\.net\b", text)) > 100
    assert len(re.findall(r"\bv\d+\.\d+\.\d+\b", text)) > 100
    assert "Wilhelmina" in text or "Xiomara" in text or "Thorvald" in text
    vocabulary = ZipfVocabulary(random.Random(1), types=10_000)
    typos = [vocabulary.misspelling() for _ in range(200)]
    known = {word_of_rank(rank) for rank in range(10_000)}
    assert sum(typo not in known for typo in typos) > 150  # most typos are not words
    wiki_tokens = [len(token_texts(page["text"])) for page in larger["wiki_pages"]]
    assert sum(wiki_tokens) / len(wiki_tokens) > 800


def test_every_rank_has_its_own_word() -> None:
    boundary = len(COMMON_WORDS) + CLASS_SIZES[0]
    ranks = [*range(boundary + 5_000), *range(4_900_000, 4_905_000)]
    words = [word_of_rank(rank) for rank in ranks]
    assert len(set(words)) == len(words)
    assert len(word_of_rank(boundary - 1)) < len(word_of_rank(4_900_000))
    with pytest.raises(ValueError):
        word_of_rank(-1)
    with pytest.raises(ValueError):
        ZipfVocabulary(random.Random(0), types=10)


def test_the_sandbox_serves_a_zipf_corpus(tmp_path: Path, small: dict[str, Any]) -> None:
    path = tmp_path / "zipf.json"
    write_corpus(small, path)
    assert len(load_corpus_file(path).work_packages) == 150
    wp = small["work_packages"][17]
    page = small["wiki_pages"][2]
    with running_sandbox(path) as sandbox:
        got = sandbox.get(f"/api/v3/work_packages/{wp['id']}", api_key=ADMIN_KEY)
        assert got.status_code == 200
        assert got.json()["subject"] == wp["subject"]
        assert got.json()["description"]["raw"] == wp["description"]
        wiki = sandbox.get(f"/api/v3/wiki_pages/{page['id']}", api_key=ADMIN_KEY)
        assert wiki.status_code == 200
        assert wiki.json()["text"]["raw"] == page["text"]


def test_gen_corpus_script_writes_a_valid_zipf_corpus(tmp_path: Path) -> None:
    out = tmp_path / "z.json"
    arguments = ["--work-packages", "30", "--vocabulary", "zipf", "--seed", "3", "--out", str(out)]
    done = subprocess.run(
        [sys.executable, str(SCRIPT), *arguments],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    data = json.loads(out.read_text(encoding="utf-8"))
    assert len(parse_corpus(data).work_packages) == 30
    assert corpus_bytes(data) == corpus_bytes(
        generate_zipf_corpus(CorpusSize.proportional(30), seed=3)
    )
    refused = subprocess.run(
        [sys.executable, str(SCRIPT), "--vocabulary", "tiny", "--out", str(tmp_path / "x.json")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert refused.returncode == 2
    assert "invalid choice: 'tiny'" in refused.stderr
    assert not (tmp_path / "x.json").exists()
