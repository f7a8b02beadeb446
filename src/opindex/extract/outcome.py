"""The result of extracting one attachment: text, outcome, stable reason code, format."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Outcome(StrEnum):
    """What became of one file."""

    EXTRACTED = "extracted"
    """All of the file's text is in ``text``."""
    TRUNCATED = "truncated"
    """``text`` holds the first part; a bound (``reason``) stopped the rest."""
    SKIPPED = "skipped"
    """Deliberately not read (too large, encrypted, zip bomb, unsupported format)."""
    FAILED = "failed"
    """Reading was attempted and went wrong (corrupt, timeout, crash, out of memory)."""
    EMPTY = "empty"
    """The file has no bytes at all: nothing to read (not counted as extracted)."""


class Reason(StrEnum):
    """Short stable codes for why a file was truncated, skipped or failed."""

    TOO_LARGE = "too_large"
    ENCRYPTED = "encrypted"
    CORRUPT = "corrupt"
    ZIP_BOMB = "zip_bomb"
    UNSUPPORTED_FORMAT = "unsupported_format"
    UNREADABLE = "unreadable"
    """The path could not be opened or is not a regular file."""
    TIMEOUT = "timeout"
    PAGE_LIMIT = "page_limit"
    TEXT_LIMIT = "text_limit"
    MEMORY_LIMIT = "memory_limit"
    CRASHED = "crashed"
    """The isolated worker process died (signal or abort) while extracting."""
    INTERNAL_ERROR = "internal_error"
    """A bug in opindex raised inside the isolated worker; the parent logs the traceback."""


class Format(StrEnum):
    """The document formats opindex recognises (``unknown`` for everything else)."""

    PDF = "pdf"
    DOCX = "docx"
    XLSX = "xlsx"
    PPTX = "pptx"
    ODT = "odt"
    ODS = "ods"
    ODP = "odp"
    TEXT = "text"
    MARKDOWN = "markdown"
    CSV = "csv"
    TSV = "tsv"
    HTML = "html"
    UNKNOWN = "unknown"


@dataclass(frozen=True, slots=True)
class Extraction:
    """The text of one file and what happened while getting it.

    ``reason`` is None exactly when ``outcome`` is ``extracted`` or ``empty``. ``detail`` is a short
    message for logs (an exception type, a library's error name), never a path, and not
    stable. ``size_bytes`` is the input's size, ``seconds`` the wall time spent on it.
    """

    text: str
    outcome: Outcome
    reason: Reason | None
    format: Format
    size_bytes: int = 0
    seconds: float = 0.0
    pages: int | None = None
    detail: str | None = None


def skipped(
    fmt: Format, reason: Reason, *, size_bytes: int, detail: str | None = None
) -> Extraction:
    """An Extraction for a file that was deliberately not read."""
    return Extraction("", Outcome.SKIPPED, reason, fmt, size_bytes=size_bytes, detail=detail)


def failed(
    fmt: Format, reason: Reason, *, size_bytes: int, detail: str | None = None
) -> Extraction:
    """An Extraction for a file whose reading went wrong."""
    return Extraction("", Outcome.FAILED, reason, fmt, size_bytes=size_bytes, detail=detail)
