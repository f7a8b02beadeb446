"""The corpus generator: deterministic bytes, valid corpora, and the shapes benchmarks need."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from opindex.errors import InvalidArgumentError
from opindex.sandbox import sample_corpus_path
from opindex.sandbox.corpus_check import load_corpus_file, parse_corpus
from opindex.sandbox.corpus_gen import CorpusSize, corpus_bytes, generate_corpus
from opindex.sandbox.sample_corpus import build_sample_corpus

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "gen_corpus.py"


@pytest.fixture(scope="module")
def corpus() -> dict[str, Any]:
    return generate_corpus(CorpusSize.proportional(1200), seed=11)


def test_same_seed_gives_identical_bytes_and_another_seed_does_not() -> None:
    size = CorpusSize.proportional(300)
    first = corpus_bytes(generate_corpus(size, seed=5))
    assert first == corpus_bytes(generate_corpus(size, seed=5))
    assert first != corpus_bytes(generate_corpus(size, seed=6))


def test_generated_corpus_passes_validation(corpus: dict[str, Any]) -> None:
    parsed = parse_corpus(json.loads(corpus_bytes(corpus)))
    assert len(parsed.work_packages) == 1200


def test_sizes_are_proportional_unless_given() -> None:
    size = CorpusSize.proportional(10_000)
    assert (size.wiki_pages, size.meetings, size.projects) == (500, 400, 8)
    assert CorpusSize.proportional(10, wiki_pages=0, meetings=7, projects=2) == CorpusSize(
        10, 0, 7, 2
    )
    with pytest.raises(InvalidArgumentError):
        CorpusSize.proportional(-1)


def test_wiki_ids_have_long_gaps_and_go_beyond_50(corpus: dict[str, Any]) -> None:
    ids = [page["id"] for page in corpus["wiki_pages"]]
    assert ids == sorted(set(ids))
    assert max(ids) > 50
    assert any(b - a - 1 >= 5 for a, b in itertools.pairwise(ids))
    few = [p["id"] for p in generate_corpus(CorpusSize(5, 4, 1, 1), seed=1)["wiki_pages"]]
    assert len(few) == 4 and max(few) > 50
    assert any(b - a - 1 >= 5 for a, b in itertools.pairwise(few))


def test_statuses_visibility_and_comments_vary(corpus: dict[str, Any]) -> None:
    closed = {s["id"] for s in corpus["statuses"] if s["isClosed"]}
    statuses = [wp["status"] for wp in corpus["work_packages"]]
    closed_share = sum(s in closed for s in statuses) / len(statuses)
    assert 0.2 < closed_share < 0.5
    projects = corpus["projects"]
    assert [p["public"] for p in projects].count(True) == 1
    everyone = {u["id"] for u in corpus["users"]}
    assert all(everyone - set(p["members"]) for p in projects)  # each project leaves people out
    activities = [a for wp in corpus["work_packages"] for a in wp["activities"]]
    assert any(a["internal"] for a in activities)
    assert any(a["comment"] is None and a["details"] for a in activities)
    assert sum(len(wp["activities"]) >= 3 for wp in corpus["work_packages"]) > 200


def test_meetings_have_agendas_outcomes_and_both_past_and_future(
    corpus: dict[str, Any],
) -> None:
    meetings = corpus["meetings"]
    outcomes = [o for m in meetings for i in m["agendaItems"] for o in i["outcomes"]]
    assert {"decision", "information"} <= {o["kind"] for o in outcomes}
    assert all(m["agendaItems"] and len(m["participants"]) >= 2 for m in meetings)
    starts = [m["startTime"] for m in meetings]
    assert any(s < "2026-11-01" for s in starts) and any(s > "2027-01-01" for s in starts)


def test_text_is_realistic_with_diacritics_and_long_wiki_bodies(corpus: dict[str, Any]) -> None:
    names = " ".join(u["name"] for u in corpus["users"])
    assert sum(letter in names for letter in "üéëŁØøåçñš") >= 6
    bodies = [page["text"] for page in corpus["wiki_pages"]]
    assert min(len(body.split()) for body in bodies) > 80
    assert "lorem" not in corpus_bytes(corpus).decode().lower()


def test_the_script_writes_the_same_file_twice(tmp_path: Path) -> None:
    outputs = []
    for name in ("a.json", "b.json"):
        out = tmp_path / name
        subprocess.run(
            [
                sys.executable,
                str(SCRIPT),
                "--work-packages",
                "150",
                "--seed",
                "3",
                "--out",
                str(out),
            ],
            check=True,
            capture_output=True,
            timeout=120,
        )
        outputs.append(out.read_bytes())
    assert outputs[0] == outputs[1]
    assert len(load_corpus_file(tmp_path / "a.json").work_packages) == 150


def test_shipped_sample_corpus_is_up_to_date() -> None:
    assert sample_corpus_path().read_bytes() == corpus_bytes(build_sample_corpus()), (
        "regenerate it: python scripts/gen_corpus.py --sample"
    )


def test_sample_corpus_stories_hold() -> None:
    sample = json.loads(sample_corpus_path().read_text(encoding="utf-8"))
    parse_corpus(sample)
    records = {key: sample[key] for key in ("work_packages", "wiki_pages", "meetings")}
    text = json.dumps(records, ensure_ascii=False).lower()
    assert "canary" not in text  # the relaxation story needs a word nobody uses
    flamingo = [wp["id"] for wp in sample["work_packages"] if "flamingo" in json.dumps(wp)]
    assert flamingo == [1002]
    wp_1002 = next(wp for wp in sample["work_packages"] if wp["id"] == 1002)
    assert "flamingo" not in (wp_1002["subject"] + wp_1002["description"]).lower()
    muellers = [u["id"] for u in sample["users"] if "Müller" in u["name"]]
    assert muellers == [101] and "müller" not in text
    assert [m["author"] for m in sample["meetings"] if m["id"] == 504] == [101]
    items = {i["title"]: i for m in sample["meetings"] for i in m["agendaItems"]}
    assert "Approval of Q3 budget" in items
    hiring = items["Hiring plan"]["outcomes"][0]
    assert hiring["kind"] == "decision" and "hire" in hiring["notes"]
    total = sum(len(sample[key]) for key in records)
    assert 150 <= total <= 400
