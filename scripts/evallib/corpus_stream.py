"""Read a corpus file in its canonical layout one record at a time (for very large corpora).

``write_corpus`` and ``write_generated_corpus`` put every record of a list on a line of
its own (``    {...},``) between ``  "key": [`` and ``  ]``, and every other key on one
line. A 1M-document corpus parsed whole takes about 11 GB as sandbox models; read this
way, only the small sections (users, projects, statuses, types, keys) are kept, checked
like a whole corpus, and the records are parsed as they are taken. A file in any other
layout raises :class:`NotCanonicalError` so callers can fall back to ``load_corpus_file``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TypeVar

from pydantic import ValidationError

from opindex.errors import CorpusError
from opindex.sandbox.corpus import Corpus, Meeting, WikiPage, WorkPackage
from opindex.sandbox.corpus_check import parse_corpus

RecordT = TypeVar("RecordT", WorkPackage, WikiPage, Meeting)

RECORD_SECTIONS = ("work_packages", "wiki_pages", "meetings")
_OPEN = re.compile(r'^  "(\w+)": \[$')
_SCALAR = re.compile(r'^  "(\w+)": (.*?),?$')


class NotCanonicalError(CorpusError):
    """The corpus file is not laid out one record per line (read it whole instead)."""


def _lines(path: Path) -> Iterator[tuple[str | None, str]]:
    """(section, line) for every line inside a list section, (None, line) otherwise."""
    section: str | None = None
    with path.open(encoding="utf-8") as handle:
        first = handle.readline().rstrip("\n")
        if first != "{":
            raise NotCanonicalError(f"{path}: not in the canonical corpus layout")
        for raw in handle:
            line = raw.rstrip("\n")
            if section is not None:
                if line in ("  ]", "  ],"):
                    section = None
                    continue
                yield section, line
                continue
            opened = _OPEN.match(line)
            if opened:
                section = opened.group(1)
                continue
            yield None, line


def _json(text: str, path: Path) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise NotCanonicalError(f"{path}: not in the canonical corpus layout ({exc})") from exc


def _row(line: str, path: Path) -> dict[str, Any]:
    value = _json(line.removesuffix(","), path) if line.startswith("    {") else None
    if not isinstance(value, dict):
        raise NotCanonicalError(f"{path}: not in the canonical corpus layout")
    return value


def read_head(path: Path) -> Corpus:
    """Everything but the records, checked like a whole corpus (records left empty)."""
    head: dict[str, Any] = {}
    for section, line in _lines(path):
        if section is None:
            scalar = _SCALAR.match(line)
            if line == "}":
                continue
            if scalar is None:
                raise NotCanonicalError(f"{path}: not in the canonical corpus layout")
            head[scalar.group(1)] = _json(scalar.group(2), path)
        elif section not in RECORD_SECTIONS:
            head.setdefault(section, []).append(_row(line, path))
    for section in RECORD_SECTIONS:
        head[section] = []
    return parse_corpus(head, source=str(path))


def read_records(path: Path, section: str, model: type[RecordT]) -> Iterator[RecordT]:
    """The records of one section (``work_packages``, ``wiki_pages``, ``meetings``) as
    *model* instances; ``CorpusError`` names a record that does not validate."""
    for found, line in _lines(path):
        if found == section:
            row = _row(line, path)
            try:
                yield model.model_validate(row)
            except ValidationError as exc:
                raise CorpusError(f"{path}: {section} id {row.get('id')!r}: {exc}") from exc


def sample_corpus(path: Path, documents: int) -> dict[str, Any]:
    """A corpus dict of the file's small sections and the first records of each kind,
    about *documents* in all, in the kinds' proportions (two passes, bounded memory)."""
    counts: dict[str, int] = dict.fromkeys(RECORD_SECTIONS, 0)
    for section, _ in _lines(path):
        if section in counts:
            counts[section] += 1
    total = sum(counts.values()) or 1
    wanted = {kind: -(-count * documents // total) for kind, count in counts.items()}
    data: dict[str, Any] = {kind: [] for kind in RECORD_SECTIONS}
    for section, line in _lines(path):
        if section is None:
            scalar = _SCALAR.match(line)
            if scalar is not None:
                data[scalar.group(1)] = _json(scalar.group(2), path)
        elif section not in RECORD_SECTIONS:
            data.setdefault(section, []).append(_row(line, path))
        elif len(data[section]) < wanted[section]:
            data[section].append(_row(line, path))
    return data
