"""Field specs per kind and rank_documents, the function both search paths call."""

from __future__ import annotations

import pytest
from tests.support.search_corpus import CORPUS, MEETINGS, WORK_PACKAGES

from opindex.errors import InvalidArgumentError
from opindex.search.analysis import analyze_document
from opindex.search.document import KINDS, FieldValue, Kind, SearchDocument
from opindex.search.fields import (
    DEEP_FIELDS,
    FIELD_SPECS,
    SHALLOW_FIELDS,
    field_names,
    rank_documents,
)
from opindex.search.rank import rank_records


def test_field_names_and_weights() -> None:
    table = {kind: [(s.name, s.weight) for s in specs] for kind, specs in FIELD_SPECS.items()}
    assert table == {
        "work_package": [
            ("subject", 3.0),
            ("description", 1.0),
            ("comments", 1.0),
            ("attachments", 1.0),
        ],
        "wiki_page": [("title", 3.0), ("text", 1.0), ("attachments", 1.0)],
        "meeting": [
            ("title", 3.0),
            ("location", 1.0),
            ("project", 0.5),
            ("author", 0.5),
            ("agenda_title", 2.0),
            ("agenda_notes", 1.5),
            ("outcome_notes", 1.5),
            ("participants", 1.0),
            ("attachments", 1.0),
        ],
        "news": [("title", 3.0), ("summary", 2.0), ("description", 1.0)],
        "document": [("title", 3.0), ("description", 1.0), ("attachments", 1.0)],
        "project": [
            ("name", 3.0),
            ("identifier", 2.0),
            ("description", 1.0),
            ("status_explanation", 1.0),
        ],
        "version": [("name", 3.0), ("description", 1.0)],
        "attachment": [("file_name", 3.0), ("description", 1.0), ("content", 1.0)],
    }
    # Every kind's heaviest field weighs the same: scores compare across kinds.
    assert {max(weight for _, weight in fields) for fields in table.values()} == {3.0}
    assert set(FIELD_SPECS) == set(KINDS)


def test_shallow_and_deep_fields() -> None:
    assert SHALLOW_FIELDS["work_package"] == {"subject"}
    assert SHALLOW_FIELDS["wiki_page"] == {"title", "text"}
    assert SHALLOW_FIELDS["meeting"] == {"title", "location", "project", "author"}
    for kind in KINDS:
        assert SHALLOW_FIELDS[kind] | DEEP_FIELDS[kind] == set(field_names(kind))
        assert not SHALLOW_FIELDS[kind] & DEEP_FIELDS[kind]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize(
    "query", ["budget aproval", "muller", "memory leak", "Q3", "", "roadmap", "cafe"]
)
@pytest.mark.parametrize("mode", ["fuzzy", "exact"])
def test_rank_documents_equals_rank_records_over_field_specs(
    kind: Kind, query: str, mode: str
) -> None:
    docs = CORPUS[kind]
    expected = rank_records(docs, query, FIELD_SPECS[kind], match_mode=mode)  # type: ignore[arg-type]
    assert rank_documents(docs, query, kind, match_mode=mode) == expected  # type: ignore[arg-type]
    analyzed = [analyze_document(doc) for doc in docs]
    assert rank_documents(analyzed, query, kind, match_mode=mode) == expected  # type: ignore[arg-type]


def _shallow(doc: SearchDocument) -> SearchDocument:
    fields = {k: v for k, v in doc.fields.items() if k in SHALLOW_FIELDS[doc.kind]}
    return SearchDocument(kind=doc.kind, id=doc.id, fields=fields)


@pytest.mark.parametrize("query", ["budget approval", "hiring", "finance", "olga petrova"])
def test_final_score_is_max_of_shallow_and_deep(query: str) -> None:
    full = {r.record.id: r.score for r in rank_documents(MEETINGS, query, "meeting", min_score=0)}
    shallow = {
        r.record.id: r.score
        for r in rank_documents([_shallow(m) for m in MEETINGS], query, "meeting", min_score=0)
    }
    deep_only = [
        SearchDocument(
            kind="meeting",
            id=m.id,
            fields={k: v for k, v in m.fields.items() if k in DEEP_FIELDS["meeting"]},
        )
        for m in MEETINGS
    ]
    deep = {r.record.id: r.score for r in rank_documents(deep_only, query, "meeting", min_score=0)}
    for meeting_id in full.keys() | shallow.keys() | deep.keys():
        assert full.get(meeting_id, 0.0) == max(
            shallow.get(meeting_id, 0.0), deep.get(meeting_id, 0.0)
        )


def test_a_dead_on_title_is_not_diluted_by_unrelated_deep_content() -> None:
    bare = SearchDocument("meeting", 1, {"title": (FieldValue("Roadmap review"),)})
    enriched = SearchDocument(
        "meeting",
        1,
        {
            "title": (FieldValue("Roadmap review"),),
            "agenda_notes": (FieldValue("Something else entirely", 5),),
        },
    )
    assert rank_documents([bare], "roadmap review", "meeting")[0].score == 1.0
    assert rank_documents([enriched], "roadmap review", "meeting")[0].score == 1.0


def test_comment_match_maps_to_its_activity() -> None:
    ranked = rank_documents(WORK_PACKAGES, "memory leak cache", "work_package")
    best = ranked[0]
    assert best.record.id == 203
    match = best.matches[0]
    assert match.field == "comments"
    assert best.record.fields["comments"][match.value_index].ref == 9003
    assert match.snippet is not None and "memory leak" in match.snippet


def test_unknown_kind_and_mixed_kinds_are_rejected() -> None:
    with pytest.raises(InvalidArgumentError, match="unknown record kind"):
        rank_documents(MEETINGS, "x", "issue")  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError, match="is a work_package, not a meeting"):
        rank_documents([*MEETINGS, WORK_PACKAGES[0]], "budget", "meeting")


def test_unknown_field_names_are_ignored_and_missing_fields_do_not_match() -> None:
    doc = SearchDocument("wiki_page", 1, {"body": (FieldValue("budget"),)})
    assert rank_documents([doc], "budget", "wiki_page") == []
