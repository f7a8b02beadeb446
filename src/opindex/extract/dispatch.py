"""``extract_text``: one file's bytes or path in, bounded plain text and an outcome out."""

from __future__ import annotations

import time

from opindex.extract.detection import (
    CONTAINER_FORMATS,
    HEAD_BYTES,
    Magic,
    declared_format,
    sniff,
    text_format,
)
from opindex.extract.limits import ExtractionLimits
from opindex.extract.office import classify, extract_office
from opindex.extract.outcome import Extraction, Format, Outcome, Reason
from opindex.extract.pdf import extract_pdf
from opindex.extract.plain import extract_csv, extract_html, extract_plain
from opindex.extract.sink import Stop, TextSink
from opindex.extract.source import Blob, Source, UnreadableSourceError
from opindex.extract.zip_container import SafeZip

DEFAULT_LIMITS = ExtractionLimits()
_PDF_HEADER_WINDOW = 1024  # PDF readers accept a header this far in


class _Run:
    """One extraction in progress: the input, its bounds, what it found so far."""

    def __init__(self, blob: Blob, declared: Format, limits: ExtractionLimits) -> None:
        self.blob = blob
        self.limits = limits
        self.format = declared
        self.sink = TextSink(limits.max_chars, limits.max_seconds)

    def extract(self) -> None:
        """Detect the format and read the text into the sink; raises :class:`Stop`."""
        head = self.blob.head(HEAD_BYTES)
        magic = sniff(head)
        declared = self.format
        if magic is Magic.PDF or (declared is Format.PDF and b"%PDF-" in head[:_PDF_HEADER_WINDOW]):
            self.format = Format.PDF
            extract_pdf(self.blob, self.limits, self.sink)
        elif magic is Magic.ZIP:
            self._container()
        elif magic is Magic.EMPTY:
            self.format = declared if declared is not Format.UNKNOWN else Format.TEXT
        elif magic is Magic.TEXT:
            self.format = text_format(declared, head)
            self._text()
        elif magic is Magic.OLE2 and declared in CONTAINER_FORMATS:
            raise Stop(Outcome.SKIPPED, Reason.ENCRYPTED, "OLE2 encrypted package")
        elif magic is Magic.BINARY and (declared is Format.PDF or declared in CONTAINER_FORMATS):
            raise Stop(Outcome.FAILED, Reason.CORRUPT, f"no {declared} signature")
        else:
            self.format = Format.UNKNOWN
            raise Stop(Outcome.SKIPPED, Reason.UNSUPPORTED_FORMAT, magic.value)

    def _container(self) -> None:
        with SafeZip(self.blob, self.limits) as archive:
            self.format = classify(archive)
            if self.format is Format.UNKNOWN:
                raise Stop(Outcome.SKIPPED, Reason.UNSUPPORTED_FORMAT, "zip archive")
            extract_office(self.format, archive, self.sink)

    def _text(self) -> None:
        if self.format in (Format.CSV, Format.TSV):
            extract_csv(self.format, self.blob, self.limits, self.sink)
        elif self.format is Format.HTML:
            extract_html(self.blob, self.limits, self.sink)
        else:
            extract_plain(self.blob, self.limits, self.sink)


def extract_text(
    source: Source,
    *,
    file_name: str,
    content_type: str | None = None,
    limits: ExtractionLimits = DEFAULT_LIMITS,
) -> Extraction:
    """The text of one attachment, within ``limits``; never raises for a bad input file.

    ``source`` is the file's bytes or the path of a downloaded file (a path is read only
    as far as needed; a file over ``limits.max_bytes`` is not read at all). The format
    comes from the magic bytes first, then ``content_type``, then ``file_name``'s
    extension. Bad input becomes an outcome with a reason (see :class:`Reason`); only
    programming errors raise. Runs in the calling thread with no memory bound and only
    a cooperative deadline: for untrusted files use the isolated
    :class:`~opindex.extract.isolation.Extractor`.
    """
    started = time.monotonic()
    declared = declared_format(file_name, content_type)
    try:
        blob = Blob(source)
    except UnreadableSourceError as error:
        return Extraction("", Outcome.FAILED, Reason.UNREADABLE, declared, detail=str(error))
    if blob.size > limits.max_bytes:
        return Extraction(
            "", Outcome.SKIPPED, Reason.TOO_LARGE, declared, size_bytes=blob.size,
            seconds=time.monotonic() - started, detail=f"{blob.size} bytes",
        )  # fmt: skip
    if blob.size == 0:
        return Extraction("", Outcome.EMPTY, None, declared, size_bytes=0)
    run = _Run(blob, declared, limits)
    outcome, reason, detail = Outcome.EXTRACTED, None, None
    try:
        run.extract()
    except Stop as stop:
        outcome, reason, detail = stop.outcome, stop.reason, stop.detail
    except MemoryError:
        outcome, reason, detail = Outcome.FAILED, Reason.MEMORY_LIMIT, None
    except (UnreadableSourceError, OSError) as error:
        outcome, reason, detail = Outcome.FAILED, Reason.UNREADABLE, type(error).__name__
    except RecursionError:
        outcome, reason, detail = Outcome.FAILED, Reason.CORRUPT, "nesting too deep"
    text = run.sink.text() if outcome in (Outcome.EXTRACTED, Outcome.TRUNCATED) else ""
    if outcome is Outcome.TRUNCATED and reason is Reason.TIMEOUT and not text:
        outcome = Outcome.FAILED
    return Extraction(
        text, outcome, reason, run.format, size_bytes=blob.size,
        seconds=time.monotonic() - started, pages=run.sink.pages, detail=detail,
    )  # fmt: skip
