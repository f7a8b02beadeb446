"""PDF text through PDFium (pypdfium2): page by page, bounded by pages, characters, time.

PDFium is not thread-safe, so one lock serialises its use within a process (the isolated
:class:`~opindex.extract.isolation.Extractor` runs one file at a time anyway).
"""

from __future__ import annotations

import threading

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from opindex.extract.limits import ExtractionLimits
from opindex.extract.outcome import Outcome, Reason
from opindex.extract.sink import Stop, TextSink
from opindex.extract.source import Blob

_PDFIUM = threading.Lock()
_LOAD_ERRORS = {
    pdfium_c.FPDF_ERR_PASSWORD: (Outcome.SKIPPED, Reason.ENCRYPTED),
    pdfium_c.FPDF_ERR_SECURITY: (Outcome.SKIPPED, Reason.ENCRYPTED),
    pdfium_c.FPDF_ERR_FILE: (Outcome.FAILED, Reason.UNREADABLE),
}


def extract_pdf(blob: Blob, limits: ExtractionLimits, sink: TextSink) -> None:
    """Read up to ``limits.max_pages`` pages into ``sink``; a document that needs a
    password stops as ``skipped/encrypted`` (no password is tried), one PDFium cannot
    load as ``failed/corrupt``. A PDF encrypted with an empty user password (permissions
    only) opens without one and is read like any other."""
    with _PDFIUM:
        try:
            document = pdfium.PdfDocument(blob.bytes_or_path())
        except pdfium.PdfiumError as error:
            outcome, reason = _LOAD_ERRORS.get(error.err_code, (Outcome.FAILED, Reason.CORRUPT))
            raise Stop(outcome, reason, f"PDFium: {error.err_code}") from error
        try:
            _read_pages(document, limits, sink)
        finally:
            document.close()


def _read_pages(document: pdfium.PdfDocument, limits: ExtractionLimits, sink: TextSink) -> None:
    total = len(document)
    sink.pages = 0
    for index in range(min(total, limits.max_pages)):
        sink.check_time()
        try:
            page = document[index]
        except pdfium.PdfiumError:
            continue  # one unreadable page does not lose the others
        try:
            textpage = page.get_textpage()
            try:
                text = textpage.get_text_range()
            finally:
                textpage.close()
        finally:
            page.close()
        sink.pages = index + 1
        sink.add(text)
        sink.add("\n\n")
    if total > limits.max_pages:
        raise Stop(Outcome.TRUNCATED, Reason.PAGE_LIMIT, f"{total} pages")
