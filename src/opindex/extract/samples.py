"""Synthetic well-formed documents of every supported format, built from scratch, for the
tests and ``scripts/bench_extract.py`` (PDF by hand; Office and ODF with :mod:`zipfile`)."""

from __future__ import annotations

import csv
import html
import io
import zipfile
from collections.abc import Sequence
from xml.sax.saxutils import escape

_PDF_LINES_PER_PAGE = 50


class PdfBuilder:
    """Writes PDF objects in order and a correct cross-reference table at the end."""

    def __init__(self) -> None:
        self._out = io.BytesIO()
        self._out.write(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
        self._offsets: list[int] = []

    @property
    def next_number(self) -> int:
        """The object number the next added object gets."""
        return len(self._offsets) + 1

    def add(self, body: bytes) -> int:
        """Add ``N 0 obj body endobj``; returns N."""
        number = self.next_number
        self._offsets.append(self._out.tell())
        self._out.write(b"%d 0 obj\n%s\nendobj\n" % (number, body))
        return number

    def add_stream(self, data: bytes, extra: bytes = b"") -> int:
        """Add a stream object holding ``data`` (already filtered, if at all)."""
        header = b"<< /Length %d %s>>\nstream\n" % (len(data), extra)
        return self.add(header + data + b"\nendstream")

    def finish(self, root: int, trailer_extra: bytes = b"") -> bytes:
        """The cross-reference table, the trailer and ``%%EOF``; returns the whole file."""
        xref_at = self._out.tell()
        self._out.write(b"xref\n0 %d\n0000000000 65535 f \n" % (len(self._offsets) + 1))
        for offset in self._offsets:
            self._out.write(b"%010d 00000 n \n" % offset)
        self._out.write(
            b"trailer\n<< /Size %d /Root %d 0 R %s>>\nstartxref\n%d\n%%%%EOF\n"
            % (len(self._offsets) + 1, root, trailer_extra, xref_at)
        )
        return self._out.getvalue()


def pdf_string(text: str) -> bytes:
    """A PDF literal string in WinAnsiEncoding (Latin letters with diacritics included)."""
    raw = text.encode("cp1252", errors="replace")
    return b"(" + raw.replace(b"\\", b"\\\\").replace(b"(", b"\\(").replace(b")", b"\\)") + b")"


def page_content(lines: Sequence[str]) -> bytes:
    """A content stream that shows ``lines`` in 11-point Helvetica, top to bottom."""
    shown = b" T*\n".join(pdf_string(line) + b" Tj" for line in lines)
    return b"BT\n/F1 11 Tf\n14 TL\n56 780 Td\n" + shown + b"\nET"


def pdf_pages(text: str) -> list[list[str]]:
    """``text``'s lines grouped into pages of 50 lines."""
    lines = text.splitlines() or [""]
    return [
        lines[start : start + _PDF_LINES_PER_PAGE]
        for start in range(0, len(lines), _PDF_LINES_PER_PAGE)
    ]


def pdf_document(pages: Sequence[Sequence[str]]) -> bytes:
    """A PDF with one page per item of ``pages``, each showing its lines of text."""
    builder = PdfBuilder()
    catalog = builder.add(b"<< /Type /Catalog /Pages 2 0 R >>")
    first_page = 4
    kids = b" ".join(b"%d 0 R" % (first_page + 2 * i) for i in range(len(pages)))
    builder.add(b"<< /Type /Pages /Kids [%s] /Count %d >>" % (kids, len(pages)))
    builder.add(
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"
    )
    for lines in pages:
        content = builder.next_number + 1
        builder.add(
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] "
            b"/Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>" % content
        )
        builder.add_stream(page_content(lines))
    return builder.finish(catalog)


def zip_bytes(members: dict[str, str | bytes], *, stored_first: bool = False) -> bytes:
    """A zip archive of ``members`` (deflated; the first one stored if ``stored_first``,
    as ODF requires of its ``mimetype``)."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for index, (name, content) in enumerate(members.items()):
            method = zipfile.ZIP_STORED if stored_first and index == 0 else zipfile.ZIP_DEFLATED
            archive.writestr(name, content, compress_type=method)
    return out.getvalue()


_W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'
_A = 'xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"'
_P = 'xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main"'
_S = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"'
_XML = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
_CONTENT_TYPES = _XML + (
    '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
    '<Default Extension="xml" ContentType="application/xml"/></Types>'
)


def docx_members(paragraphs: Sequence[str]) -> dict[str, str | bytes]:
    """The members of a DOCX whose body holds ``paragraphs`` (one run each)."""
    body = "".join(
        f'<w:p><w:r><w:t xml:space="preserve">{escape(p)}</w:t></w:r></w:p>' for p in paragraphs
    )
    document = f"{_XML}<w:document {_W}><w:body>{body}</w:body></w:document>"
    return {"[Content_Types].xml": _CONTENT_TYPES, "word/document.xml": document}


def docx_document(paragraphs: Sequence[str]) -> bytes:
    """A DOCX whose body holds ``paragraphs``."""
    return zip_bytes(docx_members(paragraphs))


def xlsx_document(rows: Sequence[Sequence[str | float]]) -> bytes:
    """An XLSX with one sheet: strings go to the shared strings, numbers stay inline."""
    shared: list[str] = []
    cells_xml = []
    for row_number, row in enumerate(rows, start=1):
        cells = []
        for value in row:
            if isinstance(value, str):
                shared.append(value)
                cells.append(f'<c t="s"><v>{len(shared) - 1}</v></c>')
            else:
                cells.append(f"<c><v>{value}</v></c>")
        cells_xml.append(f'<row r="{row_number}">{"".join(cells)}</row>')
    strings = "".join(f"<si><t>{escape(s)}</t></si>" for s in shared)
    sheets = '<sheets><sheet name="Sheet1" sheetId="1"/></sheets>'
    sheet_data = "".join(cells_xml)
    return zip_bytes(
        {
            "[Content_Types].xml": _CONTENT_TYPES,
            "xl/workbook.xml": f"{_XML}<workbook {_S}>{sheets}</workbook>",
            "xl/sharedStrings.xml": f'{_XML}<sst {_S} count="{len(shared)}">{strings}</sst>',
            "xl/worksheets/sheet1.xml": (
                f"{_XML}<worksheet {_S}><sheetData>{sheet_data}</sheetData></worksheet>"
            ),
        }
    )


def pptx_document(slides: Sequence[Sequence[str]]) -> bytes:
    """A PPTX with one slide per item of ``slides``, each a text box of paragraphs."""
    members: dict[str, str | bytes] = {
        "[Content_Types].xml": _CONTENT_TYPES,
        "ppt/presentation.xml": f"{_XML}<p:presentation {_P}/>",
    }
    for number, paragraphs in enumerate(slides, start=1):
        text = "".join(f"<a:p><a:r><a:t>{escape(p)}</a:t></a:r></a:p>" for p in paragraphs)
        members[f"ppt/slides/slide{number}.xml"] = (
            f"{_XML}<p:sld {_P} {_A}><p:cSld><p:spTree><p:sp><p:txBody>{text}"
            "</p:txBody></p:sp></p:spTree></p:cSld></p:sld>"
        )
    return zip_bytes(members)


_ODF_NS = (
    'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
    'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"'
)


def odt_document(paragraphs: Sequence[str]) -> bytes:
    """An ODT whose body holds ``paragraphs``; double spaces become ``text:s``."""
    body = "".join(
        "<text:p>" + escape(p).replace("  ", ' <text:s text:c="1"/>') + "</text:p>"
        for p in paragraphs
    )
    content = (
        f"{_XML}<office:document-content {_ODF_NS}><office:body>"
        f"<office:text>{body}</office:text></office:body></office:document-content>"
    )
    return zip_bytes(
        {
            "mimetype": "application/vnd.oasis.opendocument.text",
            "content.xml": content,
            "META-INF/manifest.xml": f"{_XML}<manifest/>",
        },
        stored_first=True,
    )


def html_document(title: str, paragraphs: Sequence[str]) -> bytes:
    """An HTML page with a script and a style (whose text must not be extracted)."""
    body = "".join(f"<p>{html.escape(p)}</p>" for p in paragraphs)
    return (
        f"<!DOCTYPE html><html><head><title>{html.escape(title)}</title>"
        "<style>p { color: red }</style><script>var hidden = 'scriptword';</script>"
        f"</head><body>{body}</body></html>"
    ).encode()


def csv_document(rows: Sequence[Sequence[str]], delimiter: str = ",") -> bytes:
    """CSV (or, with a tab, TSV) in UTF-8."""
    out = io.StringIO()
    csv.writer(out, delimiter=delimiter).writerows(rows)
    return out.getvalue().encode()
