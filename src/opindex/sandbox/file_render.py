"""Real file bytes for generated attachments: small PDF, DOCX and text files, and long streams."""

from __future__ import annotations

import io
import struct
import textwrap
import zipfile
import zlib
from collections.abc import Iterator
from xml.sax.saxutils import escape

CHUNK = 1 << 16  # bytes per streamed chunk
PDF_LINE_WIDTH = 90
PDF_LINES_PER_PAGE = 50
DOCX_TYPE = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
_ZIP_TIME = (1980, 1, 1, 0, 0, 0)  # fixed: the same text always gives the same bytes
_FILLER_BLOCK = (b"opindex sandbox filler: the quick brown fox jumps over the lazy dog. " * 1000)[
    :CHUNK
]


def _pdf_string(line: str) -> bytes:
    raw = line.encode("cp1252", "replace")
    return b"(" + raw.replace(b"\\", b"\\\\").replace(b"(", b"\\(").replace(b")", b"\\)") + b")"


def _pdf_lines(text: str) -> list[str]:
    lines: list[str] = []
    for paragraph in text.replace("\r\n", "\n").split("\n"):
        lines.extend(textwrap.wrap(paragraph, PDF_LINE_WIDTH) or [""])
    return lines


def pdf_bytes(text: str) -> bytes:
    """A minimal valid PDF 1.4 showing *text* in Helvetica, uncompressed, with an xref table."""
    lines = _pdf_lines(text)
    pages = [
        lines[start : start + PDF_LINES_PER_PAGE]
        for start in range(0, max(len(lines), 1), PDF_LINES_PER_PAGE)
    ]
    first_page = 4  # objects: 1 catalog, 2 page tree, 3 font, then page + contents per page
    kids = " ".join(f"{first_page + 2 * index} 0 R" for index in range(len(pages)))
    objects: list[bytes] = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        f"<< /Type /Pages /Kids [{kids}] /Count {len(pages)} >>".encode("ascii"),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
    ]
    for index, page_lines in enumerate(pages):
        contents = first_page + 2 * index + 1
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
            f"/Resources << /Font << /F1 3 0 R >> >> /Contents {contents} 0 R >>".encode("ascii")
        )
        body = b"BT /F1 11 Tf 14 TL 56 750 Td\n"
        body += b"".join(_pdf_string(line) + b" Tj T*\n" for line in page_lines)
        body += b"ET"
        objects.append(b"<< /Length %d >>\nstream\n" % len(body) + body + b"\nendstream")
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, obj in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + obj + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return bytes(out)


_CONTENT_TYPES = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
    '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
    '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.'
    'relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>'
    '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-'
    'officedocument.wordprocessingml.document.main+xml"/></Types>'
)
_RELS = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
    '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
    '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/'
    'relationships/officeDocument" Target="word/document.xml"/></Relationships>'
)
_DOCUMENT_HEAD = (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
    '<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">'
    "<w:body>"
)
_DOCUMENT_TAIL = "</w:body></w:document>"


def docx_bytes(text: str) -> bytes:
    """A minimal valid DOCX (Office Open XML) whose paragraphs are the lines of *text*."""
    paragraphs = "".join(
        f'<w:p><w:r><w:t xml:space="preserve">{escape(line)}</w:t></w:r></w:p>'
        for line in text.replace("\r\n", "\n").split("\n")
    )
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in (
            ("[Content_Types].xml", _CONTENT_TYPES),
            ("_rels/.rels", _RELS),
            ("word/document.xml", _DOCUMENT_HEAD + paragraphs + _DOCUMENT_TAIL),
        ):
            info = zipfile.ZipInfo(name, date_time=_ZIP_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, data.encode("utf-8"))
    return buffer.getvalue()


def filler_chunks(size: int) -> Iterator[bytes]:
    """*size* bytes of repeated text, in chunks (nothing larger than a chunk is held)."""
    remaining = size
    while remaining > 0:
        piece = _FILLER_BLOCK if remaining >= CHUNK else _FILLER_BLOCK[:remaining]
        remaining -= len(piece)
        yield piece


CORRUPT_PDF_HEAD = b"%PDF-1.7\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nstream\n"


def corrupt_pdf_chunks(size: int) -> Iterator[bytes]:
    """*size* bytes that start like a PDF and then hold only filler (no objects, no xref)."""
    head = CORRUPT_PDF_HEAD[:size]
    yield head
    yield from filler_chunks(size - len(head))


# --- a DOCX-shaped zip bomb: a small archive whose document inflates to ``size`` bytes -----

ZIP_MAX = 0xFFFFFFFF - 1  # without ZIP64, sizes must fit in 32 bits
_UNIT = 1 << 20


class ZipBomb:
    """The bytes of a zip whose ``word/document.xml`` inflates to *size* spaces.

    The deflate stream is one compressed MiB of spaces repeated (each piece starts from a
    fresh compressor and ends on a full flush, so pieces can be concatenated), then the
    remainder and the final block. The CRC of the inflated data is computed once.
    """

    def __init__(self, size: int) -> None:
        if size > ZIP_MAX:
            raise ValueError(f"a zip bomb is at most {ZIP_MAX} bytes inflated")
        self.size = size
        self._full, rest = divmod(size, _UNIT)
        self._block = _raw_deflate(b" " * _UNIT, zlib.Z_FULL_FLUSH)
        self._tail = _raw_deflate(b" " * rest, zlib.Z_FINISH)
        self._crc: int | None = None
        self._small = [
            (name, data.encode("utf-8"))
            for name, data in (("[Content_Types].xml", _CONTENT_TYPES), ("_rels/.rels", _RELS))
        ]

    def _document_crc(self) -> int:
        if self._crc is None:
            crc = 0
            block = b" " * _UNIT
            for _ in range(self._full):
                crc = zlib.crc32(block, crc)
            self._crc = zlib.crc32(b" " * (self.size - self._full * _UNIT), crc)
        return self._crc

    def _entries(self) -> list[tuple[bytes, int, int, int]]:
        """(name, crc, compressed size, inflated size) of every member, in order."""
        entries = [
            (name.encode("ascii"), zlib.crc32(data), len(data), len(data))
            for name, data in self._small
        ]
        compressed = self._full * len(self._block) + len(self._tail)
        entries.append((b"word/document.xml", self._document_crc(), compressed, self.size))
        return entries

    def length(self) -> int:
        """The number of bytes ``chunks`` yields."""
        entries = self._entries()
        local = sum(30 + len(name) + compressed for name, _, compressed, _ in entries)
        central = sum(46 + len(name) for name, *_ in entries)
        return local + central + 22

    def chunks(self) -> Iterator[bytes]:
        entries = self._entries()
        offsets: list[int] = []
        written = 0
        for index, (name, crc, compressed, inflated) in enumerate(entries):
            method = 8 if index == len(entries) - 1 else 0
            header = (
                struct.pack(
                    "<IHHHHHIIIHH",
                    0x04034B50,
                    20,
                    0,
                    method,
                    0,
                    33,
                    crc,
                    compressed,
                    inflated,
                    len(name),
                    0,
                )
                + name
            )
            offsets.append(written)
            yield header
            written += len(header) + compressed
            if method == 0:
                yield self._small[index][1]
                continue
            for _ in range(self._full):
                yield self._block
            yield self._tail
        directory = b""
        for index, (name, crc, compressed, inflated) in enumerate(entries):
            method = 8 if index == len(entries) - 1 else 0
            directory += (
                struct.pack(
                    "<IHHHHHHIIIHHHHHII",
                    0x02014B50,
                    20,
                    20,
                    0,
                    method,
                    0,
                    33,
                    crc,
                    compressed,
                    inflated,
                    len(name),
                    0,
                    0,
                    0,
                    0,
                    0,
                    offsets[index],
                )
                + name
            )
        yield directory
        yield struct.pack(
            "<IHHHHIIH", 0x06054B50, 0, 0, len(entries), len(entries), len(directory), written, 0
        )


def _raw_deflate(data: bytes, flush: int) -> bytes:
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
    return compressor.compress(data) + compressor.flush(flush)
