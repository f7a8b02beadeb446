"""Office Open XML (DOCX, XLSX, PPTX) and OpenDocument (ODT, ODS, ODP) text, read with
:mod:`zipfile` and expat: which members hold text, in which order, and which elements."""

from __future__ import annotations

import re
from collections.abc import Callable

from opindex.extract.outcome import Format, Outcome, Reason
from opindex.extract.sink import Stop, TextSink
from opindex.extract.xml_text import TextHandler, TextRules, local_name, parse_xml
from opindex.extract.zip_container import SafeZip

_ODF_KINDS = {
    b"application/vnd.oasis.opendocument.text": Format.ODT,
    b"application/vnd.oasis.opendocument.text-master": Format.ODT,
    b"application/vnd.oasis.opendocument.spreadsheet": Format.ODS,
    b"application/vnd.oasis.opendocument.presentation": Format.ODP,
}
_MANIFEST_BYTES = 1024 * 1024
_NUMBER = re.compile(r"(\d+)")

WORD_RULES = TextRules(
    leaves=frozenset({"t"}),  # w:t, and m:t / a:t of equations and drawings
    spaces=frozenset({"tab", "br", "cr", "noBreakHyphen"}),
    blocks=frozenset({"p", "tc"}),
)
SLIDE_RULES = TextRules(
    leaves=frozenset({"t"}),
    spaces=frozenset({"tab", "br"}),
    blocks=frozenset({"p"}),
)
SHARED_STRING_RULES = TextRules(
    leaves=frozenset({"t"}),
    blocks=frozenset({"si"}),
    skipped=frozenset({"rPh"}),  # phonetic guides repeat the string in kana
)
WORKBOOK_RULES = TextRules(attributes={"sheet": "name"})
ODF_RULES = TextRules(
    containers=frozenset({"p", "h"}),
    spaces=frozenset({"s", "tab", "line-break"}),
    blocks=frozenset({"p", "h", "table-cell"}),
    skipped=frozenset({"annotation-end", "note-citation", "tracked-changes"}),
)


def classify(archive: SafeZip) -> Format:
    """The document format a zip container holds, from its member names (and ODF's
    ``mimetype`` member); ``unknown`` for any other zip archive."""
    names = set(archive.names)
    if "content.xml" in names and "mimetype" in names:
        kind = (archive.read_small("mimetype", 100) or b"").strip()
        return _ODF_KINDS.get(kind, Format.UNKNOWN)
    if "word/document.xml" in names:
        return Format.DOCX
    if "xl/workbook.xml" in names:
        return Format.XLSX
    if "ppt/presentation.xml" in names:
        return Format.PPTX
    return Format.UNKNOWN


class SheetHandler(TextHandler):
    """A worksheet: inline strings and literal values; shared strings (``t="s"``, only an
    index here), booleans and errors are left out (the shared strings are read whole)."""

    def __init__(self, sink: TextSink) -> None:
        super().__init__(TextRules(leaves=frozenset({"t"}), blocks=frozenset({"row"})), sink)
        self._cell_type = ""
        self._in_value = False

    def start(self, name: str, attributes: dict[str, str]) -> None:
        local = local_name(name)
        if local == "c":
            self._cell_type = attributes.get("t", "n")
        elif local == "v":
            self._in_value = self._cell_type not in ("s", "b", "e")
        super().start(name, attributes)

    def end(self, name: str) -> None:
        local = local_name(name)
        if local == "v":
            self._in_value = False
        elif local == "c":
            self.sink.add(" ")
        super().end(name)

    def data(self, text: str) -> None:
        if self._in_value:
            self.sink.add(text)
        else:
            super().data(text)


def _numbered(names: list[str], pattern: str) -> list[str]:
    """Members matching ``pattern`` ordered by the number in their name (slide2 < slide10)."""
    matcher = re.compile(pattern)
    chosen = [name for name in names if matcher.fullmatch(name)]
    return sorted(
        chosen, key=lambda name: [int(n) if n.isdigit() else n for n in _NUMBER.split(name)]
    )


Plan = list[tuple[str, Callable[[TextSink], TextHandler]]]


def _plan(fmt: Format, names: list[str]) -> Plan:
    """The members to read for ``fmt``, in reading order, each with its handler factory."""

    def rules(r: TextRules) -> Callable[[TextSink], TextHandler]:
        return lambda sink: TextHandler(r, sink)

    if fmt is Format.DOCX:
        parts = ["word/document.xml"]
        for kind in ("header", "footer"):
            parts += _numbered(names, rf"word/{kind}\d*\.xml")
        parts += [f"word/{n}.xml" for n in ("footnotes", "endnotes", "comments")]
        return [(name, rules(WORD_RULES)) for name in parts if name in names]
    if fmt is Format.PPTX:
        slides = _numbered(names, r"ppt/slides/slide\d+\.xml")
        slides += _numbered(names, r"ppt/notesSlides/notesSlide\d+\.xml")
        return [(name, rules(SLIDE_RULES)) for name in slides]
    if fmt is Format.XLSX:
        plan: Plan = [("xl/workbook.xml", rules(WORKBOOK_RULES))]
        if "xl/sharedStrings.xml" in names:
            plan.append(("xl/sharedStrings.xml", rules(SHARED_STRING_RULES)))
        plan += [(n, SheetHandler) for n in _numbered(names, r"xl/worksheets/sheet\d+\.xml")]
        return plan
    return [("content.xml", rules(ODF_RULES))]


def extract_office(fmt: Format, archive: SafeZip, sink: TextSink) -> None:
    """Read the text members of an OOXML or ODF container into ``sink``; every member is
    approved by :meth:`SafeZip.check` before the first one is inflated."""
    if fmt in (Format.ODT, Format.ODS, Format.ODP):
        manifest = archive.read_small("META-INF/manifest.xml", _MANIFEST_BYTES) or b""
        if b"encryption-data" in manifest:
            raise Stop(Outcome.SKIPPED, Reason.ENCRYPTED, "ODF encrypted members")
    plan = _plan(fmt, archive.names)
    archive.check(name for name, _ in plan)
    for name, make_handler in plan:
        reader = archive.open_member(name)
        try:
            parse_xml(reader, make_handler(sink))
        finally:
            reader.close()
        sink.add("\n\n")
