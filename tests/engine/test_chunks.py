"""Chunking a record: title first, each body, comment, agenda item, section and file apart."""

from __future__ import annotations

from opindex.engine.chunks import (
    MAX_CHUNK_CHARS,
    MAX_CHUNKS_PER_RECORD,
    MAX_CHUNKS_PER_VALUE,
    bounded_pieces,
    record_chunks,
)
from opindex.records import Record
from opindex.search import FieldValue, Kind, SearchDocument


def record(kind: Kind, name: str, **fields: tuple[FieldValue, ...]) -> Record:
    return Record(document=SearchDocument(kind=kind, id=7, fields=fields), title=name)


def values(*texts: str, ref: int | None = None) -> tuple[FieldValue, ...]:
    return tuple(FieldValue(text, ref=ref) for text in texts)


def test_a_work_package_gives_title_description_each_comment_and_each_file() -> None:
    wp = record(
        "work_package",
        "Renew  TLS certificate",
        subject=values("Renew TLS certificate"),
        description=values("The certificate expires in June."),
        comments=(
            FieldValue("Ordered.", ref=11),
            FieldValue("  ", ref=12),
            FieldValue("Done", ref=13),
        ),
        attachments=(FieldValue("CSR text", ref=90),),
    )
    chunks = record_chunks(wp)
    assert [(c.part, c.ref) for c in chunks] == [
        ("title", None),
        ("description", None),
        ("comment", 11),
        ("comment", 13),
        ("attachment", 90),
    ]
    assert chunks[0].text == "Renew TLS certificate"
    assert chunks[1].text == "Renew TLS certificate. The certificate expires in June."


def test_a_wiki_page_is_cut_at_its_headings() -> None:
    text = "Intro line.\n\n## Rollback\n\nUndo the deploy.\n\n## Contacts\n\nAsk Ada."
    chunks = record_chunks(
        record("wiki_page", "Runbook", title=values("Runbook"), text=values(text))
    )
    assert [c.part for c in chunks] == ["title", "section", "section", "section"]
    assert chunks[2].text == "Runbook. ## Rollback Undo the deploy."
    assert chunks[3].text == "Runbook. ## Contacts Ask Ada."


def test_a_meeting_joins_each_agenda_item_with_its_notes_and_outcomes() -> None:
    meeting = record(
        "meeting",
        "Budget review",
        title=values("Budget review"),
        location=values("Room 4"),
        agenda_title=(FieldValue("Travel", ref=1), FieldValue("Hiring", ref=2)),
        agenda_notes=(FieldValue("Costs are up.", ref=1),),
        outcome_notes=(FieldValue("Approved.", ref=1), FieldValue("Two roles.", ref=2)),
        participants=values("Ada", "Bob"),
    )
    chunks = record_chunks(meeting)
    assert [(c.part, c.ref) for c in chunks] == [
        ("title", None),
        ("agenda_item", 1),
        ("agenda_item", 2),
    ]
    assert chunks[1].text == "Budget review. Travel Costs are up. Approved."
    assert chunks[2].text == "Budget review. Hiring Two roles."


def test_news_documents_projects_versions_and_files_have_their_bodies() -> None:
    news = record("news", "Released", summary=values("Short."), description=values("Long."))
    assert [c.part for c in record_chunks(news)] == ["title", "body", "body"]
    file = record("attachment", "plan.pdf", description=values("Plan"), content=values("Text"))
    assert [c.part for c in record_chunks(file)] == ["title", "description", "body"]
    project = record("project", "Ops", description=values("D"), status_explanation=values("S"))
    assert [c.part for c in record_chunks(project)] == ["title", "description", "body"]
    version = record("version", "3.0", description=values("Dark mode"))
    assert [c.part for c in record_chunks(version)] == ["title", "description"]


def test_long_text_is_cut_into_bounded_pieces_at_sentence_ends() -> None:
    sentence = "The export job is slow for users in the EU region again. "
    pieces = bounded_pieces(sentence * 40)
    assert len(pieces) > 1 and all(len(p) <= MAX_CHUNK_CHARS for p in pieces)
    assert all(p.endswith("again.") for p in pieces)
    assert " ".join(pieces) == " ".join((sentence * 40).split())


def test_a_word_longer_than_a_chunk_is_cut_and_pieces_are_capped() -> None:
    assert [len(p) for p in bounded_pieces("x" * 2000, 800)] == [800, 800, 400]
    assert len(bounded_pieces("word " * 100_000)) == MAX_CHUNKS_PER_VALUE


def test_short_paragraphs_share_a_chunk() -> None:
    assert bounded_pieces("One.\n\nTwo.\n\n\nThree.") == ["One. Two. Three."]


def test_a_record_has_at_most_the_chunk_cap_and_blank_text_gives_none() -> None:
    many = tuple(FieldValue(f"comment {n}", ref=n) for n in range(500))
    assert len(record_chunks(record("work_package", "T", comments=many))) == MAX_CHUNKS_PER_RECORD
    assert record_chunks(record("work_package", "  ", description=values(" "))) == ()
    untitled = record_chunks(record("work_package", "", description=values("Only body")))
    assert [(c.part, c.text) for c in untitled] == [("description", "Only body")]
