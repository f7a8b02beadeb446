"""Which format a file is: magic bytes first, then the content type, then the extension."""

from __future__ import annotations

from enum import Enum
from pathlib import PurePosixPath

from opindex.extract.outcome import Format

HEAD_BYTES = 4096


class Magic(Enum):
    """What the first bytes alone say."""

    PDF = "pdf"
    ZIP = "zip"
    OLE2 = "ole2"  # legacy Office, and password-protected OOXML (an encrypted package)
    BINARY = "binary"  # a known non-document signature, or bytes that are not text
    TEXT = "text"  # no signature, and the bytes look like text
    EMPTY = "empty"


_BINARY_SIGNATURES = (
    b"\x89PNG", b"\xff\xd8\xff", b"GIF8", b"BM", b"II*\x00", b"MM\x00*", b"RIFF",
    b"\x1f\x8b", b"BZh", b"\xfd7zXZ", b"7z\xbc\xaf", b"Rar!", b"\x7fELF", b"MZ",
    b"OggS", b"fLaC", b"ID3", b"\x00\x00\x00\x18ftyp", b"\x00\x00\x00\x20ftyp",
)  # fmt: skip
_TEXT_BOMS = (b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff")
_CONTENT_TYPES = {
    "application/pdf": Format.PDF,
    "application/x-pdf": Format.PDF,
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document": Format.DOCX,
    "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": Format.XLSX,
    "application/vnd.openxmlformats-officedocument.presentationml.presentation": Format.PPTX,
    "application/vnd.oasis.opendocument.text": Format.ODT,
    "application/vnd.oasis.opendocument.spreadsheet": Format.ODS,
    "application/vnd.oasis.opendocument.presentation": Format.ODP,
    "text/plain": Format.TEXT,
    "text/markdown": Format.MARKDOWN,
    "text/x-markdown": Format.MARKDOWN,
    "text/csv": Format.CSV,
    "application/csv": Format.CSV,
    "text/tab-separated-values": Format.TSV,
    "text/html": Format.HTML,
    "application/xhtml+xml": Format.HTML,
}
_EXTENSIONS = {
    ".pdf": Format.PDF,
    ".docx": Format.DOCX, ".docm": Format.DOCX, ".dotx": Format.DOCX,
    ".xlsx": Format.XLSX, ".xlsm": Format.XLSX,
    ".pptx": Format.PPTX, ".pptm": Format.PPTX,
    ".odt": Format.ODT, ".ods": Format.ODS, ".odp": Format.ODP,
    ".txt": Format.TEXT, ".text": Format.TEXT, ".log": Format.TEXT,
    ".md": Format.MARKDOWN, ".markdown": Format.MARKDOWN,
    ".csv": Format.CSV, ".tsv": Format.TSV, ".tab": Format.TSV,
    ".html": Format.HTML, ".htm": Format.HTML, ".xhtml": Format.HTML,
}  # fmt: skip
CONTAINER_FORMATS = frozenset(
    {Format.DOCX, Format.XLSX, Format.PPTX, Format.ODT, Format.ODS, Format.ODP}
)
TEXT_FORMATS = frozenset({Format.TEXT, Format.MARKDOWN, Format.CSV, Format.TSV, Format.HTML})


def sniff(head: bytes) -> Magic:
    """Classify the first bytes of a file (up to :data:`HEAD_BYTES`)."""
    if not head:
        return Magic.EMPTY
    if head.startswith(b"%PDF-"):
        return Magic.PDF
    if head.startswith((b"PK\x03\x04", b"PK\x05\x06")):
        return Magic.ZIP
    if head.startswith(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"):
        return Magic.OLE2
    if head.startswith(_BINARY_SIGNATURES):
        return Magic.BINARY
    return Magic.TEXT if looks_like_text(head) else Magic.BINARY


def looks_like_text(head: bytes) -> bool:
    """No NUL byte (unless a UTF-16/32 byte-order mark says why) and few control bytes."""
    if head.startswith(_TEXT_BOMS):
        return True
    if b"\x00" in head:
        return False
    controls = sum(1 for byte in head if byte < 32 and byte not in b"\t\n\r\f\x1b")
    return controls * 100 <= len(head)


def declared_format(file_name: str, content_type: str | None) -> Format:
    """The format the content type names, else the extension's, else ``unknown``."""
    if content_type:
        by_type = _CONTENT_TYPES.get(content_type.split(";")[0].strip().lower())
        if by_type is not None:
            return by_type
    suffix = PurePosixPath(file_name.replace("\\", "/")).suffix.lower()
    return _EXTENSIONS.get(suffix, Format.UNKNOWN)


def text_format(declared: Format, head: bytes) -> Format:
    """The format of a file whose bytes look like text: the declared text format, HTML
    if it starts like HTML, else plain text."""
    if declared in TEXT_FORMATS:
        return declared
    start = head.lstrip(b"\xef\xbb\xbf \t\r\n")[:15].lower()
    if start.startswith((b"<!doctype html", b"<html")):
        return Format.HTML
    return Format.TEXT
