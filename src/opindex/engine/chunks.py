"""A record as the text chunks its meaning is embedded from: title, bodies, comments, items."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from opindex.records import Record
from opindex.search import FieldValue, Kind

CHUNKING_VERSION = 1
"""Raised whenever chunking changes what a record's vectors are made of (stored with them)."""

MAX_CHUNK_CHARS = 800
"""A chunk holds at most this many characters of text (plus the record's title)."""
MAX_CHUNKS_PER_VALUE = 16
"""At most this many chunks come from one value (a long description, one attached file)."""
MAX_CHUNKS_PER_RECORD = 128

# The chunk kinds, stored as their index: the code of a chunk's ``part``.
PARTS: tuple[str, ...] = (
    "title",
    "description",
    "comment",
    "agenda_item",
    "section",
    "body",
    "attachment",
)
PART_CODES = {part: code for code, part in enumerate(PARTS)}

# Per kind: (field, part) pairs whose values become chunks, each value on its own.
_VALUE_FIELDS: dict[Kind, tuple[tuple[str, str], ...]] = {
    "work_package": (("description", "description"), ("comments", "comment")),
    "wiki_page": (),  # the page text is cut into its sections
    "meeting": (),  # agenda items are joined with their notes and outcomes
    "news": (("summary", "body"), ("description", "body")),
    "document": (("description", "description"),),
    "project": (("description", "description"), ("status_explanation", "body")),
    "version": (("description", "description"),),
    "attachment": (("description", "description"), ("content", "body")),
}
_HEADING = re.compile(r"(?m)^(?=#{1,6}\s)")
_PARAGRAPH = re.compile(r"\n\s*\n")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


@dataclass(frozen=True, slots=True)
class Chunk:
    """One piece of a record to embed: which ``part`` it is, the sub-record it came from
    (``ref``: activity, agenda item or attachment id), and its ``text``, which starts with
    the record's title so a piece keeps its context."""

    part: str
    ref: int | None
    text: str


def record_chunks(record: Record) -> tuple[Chunk, ...]:
    """The chunks of *record*: its title first, then its bodies in field order (at most
    ``MAX_CHUNKS_PER_RECORD``); blank text gives no chunk."""
    title = " ".join(record.title.split())
    chunks = [Chunk("title", None, title)] if title else []
    for part, ref, text in _pieces(record):
        for piece in bounded_pieces(text):
            chunks.append(Chunk(part, ref, f"{title}. {piece}" if title else piece))
            if len(chunks) >= MAX_CHUNKS_PER_RECORD:
                return tuple(chunks)
    return tuple(chunks)


def bounded_pieces(text: str, limit: int = MAX_CHUNK_CHARS) -> list[str]:
    """*text* cut into at most ``MAX_CHUNKS_PER_VALUE`` pieces of at most *limit*
    characters: at paragraph breaks, else sentence ends, else spaces (else anywhere)."""
    pieces: list[str] = []
    for paragraph in _PARAGRAPH.split(text):
        flat = " ".join(paragraph.split())
        if not flat:
            continue
        if pieces and len(pieces[-1]) + 1 + len(flat) <= limit:
            pieces[-1] = f"{pieces[-1]} {flat}"
        else:
            pieces.extend(_split_long(flat, limit))
        if len(pieces) >= MAX_CHUNKS_PER_VALUE:
            break
    return pieces[:MAX_CHUNKS_PER_VALUE]


def _split_long(text: str, limit: int) -> Iterator[str]:
    current = ""
    for sentence in _SENTENCE_END.split(text):
        for word_run in _words_within(sentence, limit):
            if current and len(current) + 1 + len(word_run) > limit:
                yield current
                current = word_run
            else:
                current = f"{current} {word_run}" if current else word_run
    if current:
        yield current


def _words_within(sentence: str, limit: int) -> Iterator[str]:
    """*sentence* as runs of whole words of at most *limit* characters (a longer word is cut)."""
    run = ""
    for word in sentence.split(" "):
        while len(word) > limit:
            if run:
                yield run
                run = ""
            yield word[:limit]
            word = word[limit:]
        if run and len(run) + 1 + len(word) > limit:
            yield run
            run = word
        else:
            run = f"{run} {word}" if run else word
    if run:
        yield run


def _pieces(record: Record) -> Iterator[tuple[str, int | None, str]]:
    """(part, ref, text) of every body of *record*, in order."""
    fields = record.document.fields
    kind = record.document.kind
    if kind == "wiki_page":
        for value in fields.get("text", ()):
            for section in _HEADING.split(value.text):
                yield "section", None, section
    if kind == "meeting":
        yield from _agenda_items(fields)
    for name, part in _VALUE_FIELDS[kind]:
        for value in fields.get(name, ()):
            yield part, value.ref, value.text
    for value in fields.get("attachments", ()):
        yield "attachment", value.ref, value.text


def _agenda_items(
    fields: Mapping[str, tuple[FieldValue, ...]],
) -> Iterator[tuple[str, int | None, str]]:
    """One text per agenda item: its title, notes and outcomes joined (ref = item id)."""
    texts: dict[int | None, list[str]] = {}
    for name in ("agenda_title", "agenda_notes", "outcome_notes"):
        for value in fields.get(name, ()):
            texts.setdefault(value.ref, []).append(value.text.strip())
    for ref, parts in texts.items():
        yield "agenda_item", ref, "\n\n".join(part for part in parts if part)
