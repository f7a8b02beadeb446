"""Plain text, Markdown, CSV/TSV and HTML: decoded from bytes, read no further than the
character budget needs."""

from __future__ import annotations

import codecs
import csv
from html.parser import HTMLParser

from opindex.extract.limits import ExtractionLimits
from opindex.extract.outcome import Format, Outcome, Reason
from opindex.extract.sink import Stop, TextSink
from opindex.extract.source import Blob

_BOMS = (
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF32_LE, "utf-32-le"),  # before UTF-16 LE, whose BOM is its prefix
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
_MAX_BYTES_PER_CHAR = 4
_ROWS_PER_TIME_CHECK = 1000
_HTML_CHUNK = 64 * 1024


def decode(raw: bytes, *, complete: bool) -> str:
    """Bytes to text: a byte-order mark decides; else UTF-8 if it is valid, else cp1252,
    else Latin-1 (never fails). ``complete=False`` tolerates a character cut at the end."""
    encoding = None
    for bom, name in _BOMS:
        if raw.startswith(bom):
            raw, encoding = raw[len(bom) :], name
            break
    for candidate in (encoding,) if encoding else ("utf-8", "cp1252"):
        decoder = codecs.getincrementaldecoder(candidate)("strict")
        try:
            return str(decoder.decode(raw, final=complete))
        except UnicodeDecodeError:
            if encoding:
                return raw.decode(encoding, errors="replace")
    return raw.decode("latin-1")


def read_text(blob: Blob, limits: ExtractionLimits) -> tuple[str, bool]:
    """The decoded text of the first bytes that can hold ``max_chars`` characters, and
    whether that was the whole input."""
    raw = blob.read_prefix(limits.max_chars * _MAX_BYTES_PER_CHAR + _MAX_BYTES_PER_CHAR)
    complete = len(raw) >= blob.size
    return decode(raw, complete=complete), complete


def _finish(complete: bool) -> None:
    if not complete:
        raise Stop(Outcome.TRUNCATED, Reason.TEXT_LIMIT)


def extract_plain(blob: Blob, limits: ExtractionLimits, sink: TextSink) -> None:
    """Plain text and Markdown, as they are."""
    text, complete = read_text(blob, limits)
    sink.add(text)
    _finish(complete)


def _delimiter(fmt: Format, text: str) -> str:
    if fmt is Format.TSV:
        return "\t"
    first_line = text[: text.find("\n")] if "\n" in text else text
    return max(",;\t|", key=first_line.count)


def extract_csv(fmt: Format, blob: Blob, limits: ExtractionLimits, sink: TextSink) -> None:
    """CSV/TSV: each row's cells joined by spaces, one row a line. A row the csv module
    refuses (an over-long field) ends parsing; the rest is kept as plain text."""
    text, complete = read_text(blob, limits)
    lines = text.splitlines(keepends=True)
    reader = csv.reader(lines, delimiter=_delimiter(fmt, text))
    try:
        for row in reader:
            sink.add(" ".join(cell for cell in row if cell) + "\n")
            if reader.line_num % _ROWS_PER_TIME_CHECK == 0:
                sink.check_time()
    except csv.Error:
        sink.add("".join(lines[max(reader.line_num - 1, 0) :]))
    _finish(complete)


_SKIPPED_HTML = frozenset({"script", "style", "template", "svg", "object", "iframe"})
_BLOCK_HTML = frozenset(
    {
        "address", "article", "aside", "blockquote", "br", "dd", "div", "dl", "dt",
        "figcaption", "footer", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr", "li",
        "main", "nav", "ol", "p", "pre", "section", "table", "td", "th", "title", "tr", "ul",
    }
)  # fmt: skip


class _HtmlText(HTMLParser):
    def __init__(self, sink: TextSink) -> None:
        super().__init__(convert_charrefs=True)
        self._sink = sink
        self._skipping: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _SKIPPED_HTML:
            self._skipping.append(tag)
        elif tag in _BLOCK_HTML and not self._skipping:
            self._sink.add("\n")

    def handle_endtag(self, tag: str) -> None:
        if self._skipping and tag == self._skipping[-1]:
            self._skipping.pop()
        elif tag in _BLOCK_HTML and not self._skipping:
            self._sink.add("\n")

    def handle_data(self, data: str) -> None:
        if not self._skipping:
            self._sink.add(data)


def extract_html(blob: Blob, limits: ExtractionLimits, sink: TextSink) -> None:
    """HTML's visible text (no script, style or embedded objects), blocks as lines."""
    text, complete = read_text(blob, limits)
    parser = _HtmlText(sink)
    for start in range(0, len(text), _HTML_CHUNK):
        parser.feed(text[start : start + _HTML_CHUNK])
        sink.check_time()
    parser.close()
    _finish(complete)
