"""The new kinds through the control endpoints and the corpus checks."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from tests.sandbox.publications_corpus import publications_corpus
from tests.support.sandbox import MEMBER_KEY, running_sandbox

from opindex.errors import CorpusError
from opindex.sandbox.corpus_check import parse_corpus


def test_mutate_upserts_and_deletes_every_new_kind() -> None:
    with running_sandbox(publications_corpus()) as sandbox:
        sandbox.mutate("upsert", "news", {"id": 5, "project": 1, "title": "Fresh", "author": 2})
        assert sandbox.get("/api/v3/news/5").json()["title"] == "Fresh"
        sandbox.mutate("upsert", "news", {"id": 5, "title": "Fresher"})
        assert sandbox.get("/api/v3/news/5").json()["title"] == "Fresher"
        sandbox.mutate("upsert", "documents", {"id": 24, "project": 1, "title": "Plan"})
        sandbox.mutate("upsert", "versions", {"id": 34, "project": 1, "name": "Sprint 13"})
        sandbox.mutate("upsert", "posts", {"id": 43, "project": 1, "subject": "Lunch?"})
        sandbox.mutate(
            "upsert",
            "attachments",
            {
                "id": 70,
                "container": {"kind": "posts", "id": 43},
                "fileName": "menu.txt",
                "author": 2,
                "generate": {"format": "text", "text": "Soup"},
            },
        )
        for path in ("documents/24", "versions/34", "posts/43", "attachments/70"):
            assert sandbox.get(f"/api/v3/{path}", MEMBER_KEY).status_code == 200
        assert sandbox.get("/api/v3/attachments/70/content").content == b"Soup"
        sandbox.mutate(
            "upsert", "attachments", {"id": 70, "generate": {"format": "text", "text": "Salad"}}
        )
        assert sandbox.get("/api/v3/attachments/70/content").content == b"Salad"
        assert sandbox.get("/api/v3/attachments/70").json()["fileSize"] == 5
        # Deleting the post takes its attachment with it.
        sandbox.mutate("delete", "posts", {"id": 43})
        assert sandbox.get("/api/v3/attachments/70").status_code == 404
        for kind, record_id in (("news", 5), ("documents", 24), ("versions", 34)):
            sandbox.mutate("delete", kind, {"id": record_id})
        for path in ("news/5", "documents/24", "versions/34", "posts/43"):
            assert sandbox.get(f"/api/v3/{path}").status_code == 404


@pytest.mark.parametrize(
    ("kind", "record", "message"),
    [
        ("news", {"id": 9, "project": 99, "title": "x", "author": 1}, "project 99 does not exist"),
        ("versions", {"id": 9, "project": 1, "name": "x", "status": "done"}, "status"),
        (
            "attachments",
            {"id": 99, "container": {"kind": "meetings", "id": 5}, "fileName": "a", "author": 1},
            "attachments id 99: container meetings 5 does not exist",
        ),
    ],
)
def test_mutate_refuses_bad_records(kind: str, record: dict[str, Any], message: str) -> None:
    with running_sandbox(publications_corpus()) as sandbox:
        response = httpx.post(
            f"{sandbox.base_url}/_sandbox/mutate",
            json={"op": "upsert", "kind": kind, "record": record},
        )
        assert response.status_code == 400
        assert message in response.json()["error"]


def test_stats_count_the_new_paths() -> None:
    with running_sandbox(publications_corpus()) as sandbox:
        sandbox.reset_stats()
        for path in ("/api/v3/news", "/api/v3/versions/31", "/api/v3/attachments/51/content"):
            sandbox.get(path)
        stats = sandbox.stats()
        assert stats["requests"] == 3
        assert stats["by_path"]["/api/v3/attachments/51/content"] == 1
        assert stats["by_path"]["/api/v3/news"] == 1


def _refused(change: dict[str, Any]) -> str:
    corpus = publications_corpus()
    for key, value in change.items():
        corpus[key] = value(corpus[key]) if callable(value) else value
    with pytest.raises(CorpusError) as caught:
        parse_corpus(corpus)
    return str(caught.value)


def test_corpus_check_names_records_with_bad_references() -> None:
    assert "news id 1: project 77 does not exist" in _refused(
        {"news": lambda rows: [{**rows[0], "project": 77}, *rows[1:]]}
    )
    assert "news id 1: author user 77 does not exist" in _refused(
        {"news": lambda rows: [{**rows[0], "author": 77}, *rows[1:]]}
    )
    assert "documents id 21: duplicate id" in _refused({"documents": lambda rows: [*rows, rows[0]]})
    assert "versions id 31: project 5 does not exist" in _refused(
        {"versions": lambda rows: [{**rows[0], "project": 5}, *rows[1:]]}
    )
    assert "posts id 41: author user 9 does not exist" in _refused(
        {"posts": lambda rows: [{**rows[0], "author": 9}, *rows[1:]]}
    )
    missing = {"kind": "wiki_pages", "id": 404}
    assert "attachments id 51: container wiki_pages 404 does not exist" in _refused(
        {"attachments": lambda rows: [{**rows[0], "container": missing}, *rows[1:]]}
    )
    assert "attachments[0] (id 51): field container.kind" in _refused(
        {"attachments": lambda rows: [{**rows[0], "container": {"kind": "x", "id": 1}}]}
    )
    assert "contentBase64 or generate, not both" in _refused(
        {"attachments": lambda rows: [{**rows[0], "contentBase64": "AA=="}]}
    )
    assert "needs a size in bytes" in _refused(
        {"attachments": lambda rows: [{**rows[0], "generate": {"format": "filler"}}]}
    )


def test_new_keys_are_optional() -> None:
    corpus = publications_corpus()
    for key in ("news", "documents", "versions", "posts", "attachments"):
        del corpus[key]
    parsed = parse_corpus(corpus)
    assert (parsed.news, parsed.attachments) == ([], [])
    corpus["news"] = None
    assert parse_corpus(corpus).news == []
