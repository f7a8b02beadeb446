"""Bounds and hostile input: size, pages, text, time, encryption, corruption, zip bombs,
forged zip directories and DTDs all end as outcomes, in bounded time and memory."""

from __future__ import annotations

import time
import tracemalloc
from collections.abc import Callable, Iterator
from pathlib import Path

import pypdfium2 as pdfium
import pytest
from tests.extract.samples import (
    BILLION_LAUGHS,
    MIB,
    encrypted_pdf,
    lying_docx,
    many_members_zip,
    zip_bomb_docx,
)

from opindex.errors import InvalidArgumentError
from opindex.extract import (
    Extraction,
    ExtractionLimits,
    InvalidExtractionLimitsError,
    Outcome,
    Reason,
    extract_text,
    samples,
)
from opindex.extract.outcome import Format
from opindex.extract.sink import Stop
from opindex.extract.source import Blob
from opindex.extract.zip_container import CappedReader, SafeZip


@pytest.fixture(scope="module")
def zip_bomb() -> bytes:
    return zip_bomb_docx(256 * MIB)


def _peak_bytes(call: Callable[[], Extraction]) -> tuple[Extraction, int]:
    """The result of ``call`` and the peak of Python allocations while it ran."""
    tracemalloc.start()
    try:
        result = call()
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def _verdict(result: Extraction) -> tuple[Outcome, Reason | None]:
    return result.outcome, result.reason


def test_a_200_mb_file_is_skipped_unread_fast_and_small(tmp_path: Path) -> None:
    path = tmp_path / "huge.pdf"
    with path.open("wb") as sparse:
        sparse.truncate(200 * MIB)  # a hole: nothing of it is in memory or on disk
    started = time.monotonic()
    result, peak = _peak_bytes(lambda: extract_text(path, file_name="huge.pdf"))
    assert _verdict(result) == (Outcome.SKIPPED, Reason.TOO_LARGE)
    assert result.size_bytes == 200 * MIB
    assert result.format is Format.PDF
    assert time.monotonic() - started < 0.5
    assert peak < 256 * 1024


def test_bytes_over_the_limit_are_skipped() -> None:
    limits = ExtractionLimits(max_bytes=100)
    assert _verdict(extract_text(b"x" * 101, file_name="a.txt", limits=limits)) == (
        Outcome.SKIPPED,
        Reason.TOO_LARGE,
    )
    assert extract_text(b"x" * 100, file_name="a.txt", limits=limits).outcome is Outcome.EXTRACTED


@pytest.mark.parametrize(
    "data",
    [
        b"%PDF-1.7\n" + bytes(range(256)) * 8,
        b"%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\n%%EOF",
    ],
)
def test_a_corrupt_pdf_fails_as_corrupt(data: bytes) -> None:
    assert _verdict(extract_text(data, file_name="a.pdf")) == (Outcome.FAILED, Reason.CORRUPT)


def test_a_binary_file_named_pdf_fails_as_corrupt() -> None:
    result = extract_text(bytes(range(256)), file_name="a.pdf")
    assert _verdict(result) == (Outcome.FAILED, Reason.CORRUPT)


def test_a_password_protected_pdf_is_skipped_as_encrypted() -> None:
    data = encrypted_pdf(["geheim Müller"], user_password="secret", owner_password="owner")
    result = extract_text(data, file_name="a.pdf")
    assert _verdict(result) == (Outcome.SKIPPED, Reason.ENCRYPTED)
    assert result.text == ""
    # the file is genuinely encrypted, not just broken: the password opens it
    document = pdfium.PdfDocument(data, password="secret")
    assert "geheim" in document[0].get_textpage().get_text_range()
    document.close()


def test_a_pdf_with_only_an_owner_password_is_read() -> None:
    data = encrypted_pdf(["offen Müller"], user_password="", owner_password="owner")
    assert extract_text(data, file_name="a.pdf").text == "offen Müller"


def test_a_page_limit_truncates_a_pdf() -> None:
    data = samples.pdf_document([[f"page {n} text"] for n in range(1, 6)])
    result = extract_text(data, file_name="a.pdf", limits=ExtractionLimits(max_pages=2))
    assert _verdict(result) == (Outcome.TRUNCATED, Reason.PAGE_LIMIT)
    assert "page 2 text" in result.text and "page 3" not in result.text
    assert result.pages == 2


@pytest.mark.parametrize(
    ("file_name", "data"),
    [
        ("a.txt", ("wort " * 5000).encode()),
        ("a.docx", samples.docx_document(["wort " * 100] * 50)),
        ("a.pdf", samples.pdf_document([["wort " * 20] * 50] * 5)),
        ("a.csv", samples.csv_document([["wort", "wort"]] * 2000)),
    ],
)
def test_a_text_limit_truncates(file_name: str, data: bytes) -> None:
    result = extract_text(data, file_name=file_name, limits=ExtractionLimits(max_chars=1000))
    assert _verdict(result) == (Outcome.TRUNCATED, Reason.TEXT_LIMIT)
    assert 900 <= len(result.text) <= 1000


def test_a_long_text_file_is_read_only_as_far_as_the_limit_needs(tmp_path: Path) -> None:
    path = tmp_path / "long.txt"
    path.write_bytes(b"abcdefghij" * 1_000_000)  # 10 MB
    limits = ExtractionLimits(max_chars=1000)
    result, peak = _peak_bytes(lambda: extract_text(path, file_name="long.txt", limits=limits))
    assert _verdict(result) == (Outcome.TRUNCATED, Reason.TEXT_LIMIT)
    assert peak < 100_000


class _SteppingClock:
    """time.monotonic stand-in that advances one second per reading."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        self.now += 1.0
        return self.now


@pytest.fixture
def stepping_clock(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    # the sink reads time.monotonic(); every reading now moves the clock one second on
    monkeypatch.setattr("opindex.extract.sink.time.monotonic", _SteppingClock())
    yield


@pytest.mark.usefixtures("stepping_clock")
def test_the_deadline_keeps_the_pages_read_before_it() -> None:
    data = samples.pdf_document([[f"page {n} text"] for n in range(1, 6)])
    result = extract_text(data, file_name="a.pdf", limits=ExtractionLimits(max_seconds=2.5))
    assert _verdict(result) == (Outcome.TRUNCATED, Reason.TIMEOUT)
    assert "page 1 text" in result.text and "page 5" not in result.text


def test_a_deadline_spent_before_any_text_fails_as_timeout() -> None:
    data = samples.pdf_document([["never read"]])
    result = extract_text(data, file_name="a.pdf", limits=ExtractionLimits(max_seconds=1e-9))
    assert _verdict(result) == (Outcome.FAILED, Reason.TIMEOUT)


def test_a_zip_bomb_docx_is_refused_from_its_central_directory(zip_bomb: bytes) -> None:
    result, peak = _peak_bytes(lambda: extract_text(zip_bomb, file_name="bomb.docx"))
    assert _verdict(result) == (Outcome.SKIPPED, Reason.ZIP_BOMB)
    assert peak < 2 * MIB


def test_a_ratio_bomb_under_the_size_cap_is_refused() -> None:
    data = zip_bomb_docx(20 * MIB)  # 20 MiB < the 100 MiB cap, but ~230:1
    result = extract_text(data, file_name="bomb.docx")
    assert _verdict(result) == (Outcome.SKIPPED, Reason.ZIP_BOMB)
    assert "ratio" in (result.detail or "")


def test_a_member_that_inflates_past_its_declared_size_is_still_capped() -> None:
    data = lying_docx(actual=30 * MIB, declared=1 * MIB)  # passes the directory checks
    result, peak = _peak_bytes(lambda: extract_text(data, file_name="lie.docx"))
    assert result.outcome is Outcome.FAILED
    assert result.reason in (Reason.CORRUPT, Reason.ZIP_BOMB)
    assert peak < 8 * MIB  # never the 30 MiB the member really holds


class _EndlessStream:
    """A member stream that ignores its declared size (as a buggy inflater might)."""

    def read(self, size: int) -> bytes:
        return b"\x00" * size

    def close(self) -> None:
        pass


def test_the_capped_reader_stops_at_the_declared_size() -> None:
    archive = SafeZip(Blob(samples.docx_document(["x"])), ExtractionLimits())
    reader = CappedReader(_EndlessStream(), archive, declared=100_000)  # type: ignore[arg-type]
    with pytest.raises(Stop) as stopped:
        while reader.read(65536):
            pass
    assert stopped.value.reason is Reason.ZIP_BOMB
    assert reader.bytes_read <= 100_000 + 65536


def test_the_container_budget_caps_the_sum_of_members() -> None:
    limits = ExtractionLimits(max_zip_uncompressed_bytes=200_000)
    archive = SafeZip(Blob(samples.docx_document(["x"])), limits)
    readers = [CappedReader(_EndlessStream(), archive, 150_000) for _ in range(2)]  # type: ignore[arg-type]
    readers[0].read(150_000)
    with pytest.raises(Stop) as stopped:
        readers[1].read(150_000)
    assert stopped.value.reason is Reason.ZIP_BOMB


def test_too_many_zip_entries_are_refused_before_zipfile_reads_them() -> None:
    limits = ExtractionLimits(max_zip_members=50)
    result = extract_text(many_members_zip(100), file_name="a.docx", limits=limits)
    assert _verdict(result) == (Outcome.SKIPPED, Reason.ZIP_BOMB)


@pytest.mark.parametrize(
    "data",
    [
        b"PK\x03\x04" + bytes(200),  # a local header and nothing else
        samples.docx_document(["x"])[:-30],  # the end of the central directory cut off
    ],
)
def test_a_corrupt_zip_fails_as_corrupt(data: bytes) -> None:
    assert _verdict(extract_text(data, file_name="a.docx")) == (Outcome.FAILED, Reason.CORRUPT)


def test_malformed_xml_in_a_docx_fails_as_corrupt() -> None:
    data = samples.zip_bytes({"word/document.xml": "<w:document><w:body>"})
    assert _verdict(extract_text(data, file_name="a.docx")) == (Outcome.FAILED, Reason.CORRUPT)


def test_a_dtd_is_refused_so_entities_never_expand() -> None:
    data = samples.zip_bytes({"word/document.xml": BILLION_LAUGHS})
    started = time.monotonic()
    result, peak = _peak_bytes(lambda: extract_text(data, file_name="lol.docx"))
    assert _verdict(result) == (Outcome.FAILED, Reason.CORRUPT)
    assert result.detail == "XML with a DTD"
    assert time.monotonic() - started < 1.0 and peak < 2 * MIB


def test_an_encrypted_ooxml_package_is_skipped_as_encrypted() -> None:
    ole2 = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(512)
    assert _verdict(extract_text(ole2, file_name="secret.xlsx")) == (
        Outcome.SKIPPED,
        Reason.ENCRYPTED,
    )


def test_an_encrypted_odf_is_skipped_as_encrypted() -> None:
    data = samples.zip_bytes(
        {
            "mimetype": "application/vnd.oasis.opendocument.text",
            "content.xml": b"\x8a\x13 encrypted bytes",
            "META-INF/manifest.xml": "<manifest><encryption-data/></manifest>",
        },
        stored_first=True,
    )
    assert _verdict(extract_text(data, file_name="a.odt")) == (Outcome.SKIPPED, Reason.ENCRYPTED)


def test_a_missing_path_or_a_directory_fails_as_unreadable(tmp_path: Path) -> None:
    for path in (tmp_path / "missing.pdf", tmp_path):
        result = extract_text(path, file_name="x.pdf")
        assert _verdict(result) == (Outcome.FAILED, Reason.UNREADABLE)


def test_a_str_source_is_a_programming_error() -> None:
    with pytest.raises(TypeError):
        extract_text("/some/path", file_name="x.txt")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "changes",
    [{"max_bytes": 0}, {"max_pages": -1}, {"max_seconds": 0.0}, {"max_zip_ratio": "100"}],
)
def test_nonsensical_limits_raise_an_opindex_error(changes: dict[str, object]) -> None:
    with pytest.raises(InvalidExtractionLimitsError) as raised:
        ExtractionLimits(**changes)  # type: ignore[arg-type]
    assert isinstance(raised.value, InvalidArgumentError)
