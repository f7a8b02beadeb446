"""A corpus that breaks the rules is refused with a message naming the record."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from tests.support.sandbox import CorpusBuilder

from opindex.errors import CorpusError
from opindex.sandbox.corpus import CORPUS_TIME
from opindex.sandbox.corpus_check import load_corpus_file, parse_corpus


def _corpus_with_wp(**fields: Any) -> dict[str, Any]:
    builder = CorpusBuilder()
    builder.add_work_package(101, **fields)
    return builder.build()


def _refusal(data: Any) -> str:
    with pytest.raises(CorpusError) as caught:
        parse_corpus(data)
    return str(caught.value)


def test_a_valid_corpus_loads_with_defaults_for_optional_keys() -> None:
    builder = CorpusBuilder()
    builder.add_work_package(
        101, description=None, assignee=None, activities=None, colour="ignored unknown key"
    )
    del builder.data["work_packages"][0]["createdAt"]
    builder.add_meeting(12, location=None, participants=None, agendaItems=None)
    builder.add_wiki_page(7, text=None, slug=None)
    corpus = parse_corpus(builder.build())
    wp = corpus.work_packages[0]
    assert wp.description is None and wp.activities == [] and wp.created_at == CORPUS_TIME
    assert corpus.meetings[0].participants == [] and corpus.meetings[0].agenda_items == []


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"project": 99}, "work_packages id 101: project 99 does not exist"),
        ({"status": 42}, "work_packages id 101: status 42 does not exist"),
        ({"type": 42}, "work_packages id 101: type 42 does not exist"),
        ({"author": 42}, "work_packages id 101: author user 42 does not exist"),
        ({"assignee": 42}, "work_packages id 101: assignee user 42 does not exist"),
        (
            {"activities": [{"id": 1, "user": 42, "comment": "hi"}]},
            "work_packages id 101 activity 1: user 42 does not exist",
        ),
        ({"subject": None}, "work_packages[0] (id 101): field subject"),
        ({"createdAt": "last tuesday"}, "work_packages[0] (id 101): field createdAt"),
    ],
)
def test_broken_work_package_is_named(fields: dict[str, Any], message: str) -> None:
    assert message in _refusal(_corpus_with_wp(**fields))


def test_duplicate_ids_are_named() -> None:
    builder = CorpusBuilder()
    builder.add_work_package(101)
    builder.add_work_package(101)
    assert "work_packages id 101: duplicate id" in _refusal(builder.build())
    builder = CorpusBuilder()
    builder.add_wiki_page(7)
    builder.add_wiki_page(7)
    assert "wiki_pages id 7: duplicate id" in _refusal(builder.build())
    builder = CorpusBuilder()
    builder.add_work_package(101, activities=[{"id": 5, "user": 1, "comment": "a"}])
    builder.add_work_package(102, activities=[{"id": 5, "user": 1, "comment": "b"}])
    assert "activities id 5: duplicate id" in _refusal(builder.build())


def test_broken_meeting_and_wiki_page_are_named() -> None:
    builder = CorpusBuilder()
    builder.add_meeting(12, participants=[1, 77])
    assert "meetings id 12: participant user 77 does not exist" in _refusal(builder.build())
    builder = CorpusBuilder()
    builder.add_meeting(12, state="finished")
    assert "meetings[0] (id 12): field state" in _refusal(builder.build())
    builder = CorpusBuilder()
    builder.add_meeting(
        12, agendaItems=[{"id": 1, "title": "x", "outcomes": [{"id": 2, "author": 77}]}]
    )
    assert "meetings id 12 agenda item 1 outcome 2: author user 77" in _refusal(builder.build())
    builder = CorpusBuilder()
    builder.add_wiki_page(7, project=99)
    assert "wiki_pages id 7: project 99 does not exist" in _refusal(builder.build())


def test_api_key_of_a_missing_user_is_named_without_the_key() -> None:
    data = CorpusBuilder().build()
    data["api_keys"]["very-secret-token"] = 77
    message = _refusal(data)
    assert "api_keys entry #4: user 77 does not exist" in message
    assert "very-secret-token" not in message


def test_wrong_version_and_shape_are_refused() -> None:
    data = CorpusBuilder().build()
    data["version"] = 2
    assert "field version" in _refusal(data)
    assert "top level must be a JSON object" in _refusal([1, 2])


def test_bad_json_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "corpus.json"
    path.write_text('{"version": 1, "users": [', encoding="utf-8")
    with pytest.raises(CorpusError, match="not valid JSON"):
        load_corpus_file(path)
    with pytest.raises(CorpusError, match="cannot read corpus"):
        load_corpus_file(tmp_path / "missing.json")


def test_the_command_exits_2_naming_the_record(tmp_path: Path) -> None:
    path = tmp_path / "corpus.json"
    path.write_text(json.dumps(_corpus_with_wp(status=42)), encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "opindex", "sandbox", "--corpus", str(path), "--port", "0"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert result.stdout == ""
    assert "work_packages id 101: status 42 does not exist" in result.stderr
    assert "Traceback" not in result.stderr
