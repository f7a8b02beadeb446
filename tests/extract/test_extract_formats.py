"""Each supported format yields its words (diacritics intact); detection order holds."""

from __future__ import annotations

import codecs
from pathlib import Path

import pytest

from opindex.extract import Extraction, Format, Outcome, Reason, extract_text, samples
from opindex.extract.detection import Magic, sniff

WORDS = ["Müller", "Straße", "Œuvre", "naïve"]


def _extract(data: bytes, file_name: str, content_type: str | None = None) -> Extraction:
    return extract_text(data, file_name=file_name, content_type=content_type)


def _assert_words(result: Extraction, fmt: Format, words: list[str] = WORDS) -> None:
    assert (result.outcome, result.reason, result.format) == (Outcome.EXTRACTED, None, fmt)
    for word in words:
        assert word in result.text


@pytest.mark.parametrize(
    ("file_name", "fmt", "data"),
    [
        ("report.pdf", Format.PDF, samples.pdf_document([["Müller Straße"], ["Œuvre naïve"]])),
        ("letter.docx", Format.DOCX, samples.docx_document(["Müller Straße", "Œuvre naïve"])),
        ("sheet.xlsx", Format.XLSX, samples.xlsx_document([["Müller", "Straße"], ["Œuvre naïve"]])),
        ("deck.pptx", Format.PPTX, samples.pptx_document([["Müller Straße"], ["Œuvre naïve"]])),
        ("letter.odt", Format.ODT, samples.odt_document(["Müller Straße", "Œuvre naïve"])),
        ("page.html", Format.HTML, samples.html_document("Müller", ["Straße", "Œuvre naïve"])),
        ("table.csv", Format.CSV, samples.csv_document([["Müller", "Straße"], ["Œuvre naïve"]])),
        ("notes.md", Format.MARKDOWN, "# Müller\n\n* Straße\n* Œuvre naïve\n".encode()),
        ("notes.txt", Format.TEXT, "Müller Straße\nŒuvre naïve\n".encode()),
    ],
)  # fmt: skip
def test_each_format_yields_its_words(file_name: str, fmt: Format, data: bytes) -> None:
    _assert_words(_extract(data, file_name), fmt)


def test_a_pdf_keeps_page_order_and_counts_pages() -> None:
    result = _extract(samples.pdf_document([["first page"], ["second page"], ["third"]]), "a.pdf")
    assert result.pages == 3
    assert result.text.index("first") < result.text.index("second") < result.text.index("third")


def test_pdf_strings_with_parentheses_and_backslashes_survive() -> None:
    result = _extract(samples.pdf_document([["(a) \\ b"]]), "a.pdf")
    assert "(a) \\ b" in result.text


def test_xlsx_keeps_sheet_names_shared_strings_and_numbers_but_not_string_indexes() -> None:
    result = _extract(samples.xlsx_document([["Angebot", 1234.5], ["Rechnung", 77]]), "a.xlsx")
    _assert_words(result, Format.XLSX, ["Sheet1", "Angebot", "Rechnung", "1234.5", "77"])
    assert "0" not in result.text.split()  # the shared-string index of "Angebot"


def test_pptx_reads_slides_in_numeric_order() -> None:
    slides = [[f"slide number {n}"] for n in range(1, 12)]
    text = _extract(samples.pptx_document(slides), "deck.pptx").text
    assert text.index("slide number 2") < text.index("slide number 10")


def test_docx_reads_headers_footers_and_keeps_tabs_as_spaces() -> None:
    members = samples.docx_members(["body text"])
    word = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'
    members["word/header1.xml"] = (
        f"<w:hdr {word}><w:p><w:r><w:t>Kopfzeile</w:t></w:r></w:p></w:hdr>"
    )
    members["word/document.xml"] = (
        f"<w:document {word}><w:body><w:p><w:r><w:t>left</w:t><w:tab/><w:t>right</w:t>"
        "<w:instrText>PAGE</w:instrText></w:r></w:p></w:body></w:document>"
    )
    result = _extract(samples.zip_bytes(members), "a.docx")
    _assert_words(result, Format.DOCX, ["left right", "Kopfzeile"])
    assert "PAGE" not in result.text  # field codes are not content


def test_odt_spaces_and_nested_spans() -> None:
    result = _extract(samples.odt_document(["one  two"]), "a.odt")
    _assert_words(result, Format.ODT, ["one two"])


def test_html_leaves_out_scripts_and_styles() -> None:
    result = _extract(samples.html_document("Title", ["visible"]), "a.html")
    _assert_words(result, Format.HTML, ["Title", "visible"])
    assert "scriptword" not in result.text
    assert "color" not in result.text


@pytest.mark.parametrize(
    ("data", "delimiter"),
    [
        (b"Name;Ort\nM\xfcller;Stra\xdfe\n", ";"),  # cp1252, semicolons (German Excel)
        (b"Name\tOrt\nM\xc3\xbcller\tStra\xc3\x9fe\n", "\t"),
    ],
)
def test_csv_cells_are_joined_by_spaces(data: bytes, delimiter: str) -> None:
    name = "a.tsv" if delimiter == "\t" else "a.csv"
    result = _extract(data, name)
    assert result.text == "Name Ort\nMüller Straße"


@pytest.mark.parametrize(
    "data",
    [
        codecs.BOM_UTF8 + "Müller Straße".encode(),
        codecs.BOM_UTF16_LE + "Müller Straße".encode("utf-16-le"),
        codecs.BOM_UTF16_BE + "Müller Straße".encode("utf-16-be"),
        "Müller Straße".encode("cp1252"),
        "Müller Straße".encode(),
    ],
)
def test_text_encodings_decode(data: bytes) -> None:
    assert _extract(data, "a.txt").text == "Müller Straße"


def test_magic_bytes_beat_the_name_and_the_content_type() -> None:
    pdf = samples.pdf_document([["real pdf"]])
    result = _extract(pdf, "misnamed.docx", "text/plain")
    assert (result.format, result.text) == (Format.PDF, "real pdf")


def test_content_type_beats_the_extension() -> None:
    result = _extract(b"a,b\nc,d\n", "data.txt", "text/csv; charset=utf-8")
    assert (result.format, result.text) == (Format.CSV, "a b\nc d")


def test_text_without_hints_is_read_as_text_and_html_is_recognised() -> None:
    assert _extract(b"plain words", "noextension").format is Format.TEXT
    assert _extract(b"<!DOCTYPE html><p>hi</p>", "page", None).format is Format.HTML


@pytest.mark.parametrize(
    ("data", "file_name"),
    [
        (b"\x89PNG\r\n\x1a\n" + bytes(100), "picture.txt"),
        (bytes(range(256)) * 4, "blob.bin"),
        (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(100), "legacy.doc"),
        (samples.zip_bytes({"readme.txt": "zipped text"}), "archive.zip"),
    ],
)
def test_binary_and_unknown_containers_are_skipped_as_unsupported(
    data: bytes, file_name: str
) -> None:
    result = _extract(data, file_name)
    assert (result.outcome, result.reason, result.text) == (
        Outcome.SKIPPED,
        Reason.UNSUPPORTED_FORMAT,
        "",
    )


def test_an_empty_file_is_its_own_outcome_not_extracted() -> None:
    result = _extract(b"", "empty.txt")
    assert (result.outcome, result.text, result.reason) == (Outcome.EMPTY, "", None)


def test_sniff_tells_the_families_apart() -> None:
    assert sniff(b"%PDF-1.7") is Magic.PDF
    assert sniff(b"PK\x03\x04rest") is Magic.ZIP
    assert sniff(b"hello\n") is Magic.TEXT
    assert sniff(b"\x00\x01\x02\x03") is Magic.BINARY
    assert sniff(b"") is Magic.EMPTY


def test_path_input_reads_the_file(tmp_path: Path) -> None:
    path = tmp_path / "letter.docx"
    path.write_bytes(samples.docx_document(["Müller from disk"]))
    _assert_words(extract_text(path, file_name="letter.docx"), Format.DOCX, ["Müller from disk"])
