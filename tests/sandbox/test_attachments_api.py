"""Attachments over real HTTP: schema, per-container lists, real content bytes, big streams."""

from __future__ import annotations

import base64
import hashlib
import io
import re
import time
import zipfile
from collections.abc import Iterator
from typing import Any

import pytest
import yaml
from jsonschema import Draft202012Validator
from tests.sandbox.publications_corpus import (
    CONTRACT_PHRASE,
    FILLER_BYTES,
    SMALL_PNG,
    publications_corpus,
)
from tests.support.openapi import EXAMPLES, FORMATS, SCHEMAS, problems
from tests.support.sandbox import SandboxHandle, running_sandbox


@pytest.fixture(scope="module")
def sandbox() -> Iterator[SandboxHandle]:
    with running_sandbox(publications_corpus()) as handle:
        yield handle


def _attachment_validator() -> Draft202012Validator:
    """attachment_model.yml, except ``digest``: the schema says string, but its own example
    and OpenProject render ``{algorithm, hash}``, which is what the sandbox sends."""
    schema = yaml.safe_load((EXAMPLES / "attachment_model.yml").read_text(encoding="utf-8"))
    schema["properties"]["digest"] = {
        "type": "object",
        "required": ["algorithm", "hash"],
        "properties": {"algorithm": {"const": "md5"}, "hash": {"pattern": "^[0-9a-f]{32}$"}},
    }
    for ref in ("formattable.yml", "link.yml"):  # resolve the relative $refs in schemas/
        _replace_ref(schema, f"./{ref}", yaml.safe_load((SCHEMAS / ref).read_text("utf-8")))
    return Draft202012Validator(schema, format_checker=FORMATS)


def _replace_ref(node: Any, ref: str, target: dict[str, Any]) -> None:
    if isinstance(node, dict):
        for key, value in node.items():
            if isinstance(value, dict) and value.get("$ref") == ref:
                node[key] = target
            else:
                _replace_ref(value, ref, target)
    elif isinstance(node, list):
        for index, value in enumerate(node):
            if isinstance(value, dict) and value.get("$ref") == ref:
                node[index] = target
            else:
                _replace_ref(value, ref, target)


def _content(sandbox: SandboxHandle, attachment_id: int) -> tuple[bytes, dict[str, Any]]:
    response = sandbox.get(f"/api/v3/attachments/{attachment_id}/content")
    assert response.status_code == 200
    return response.content, dict(response.headers)


def test_attachments_match_the_schema_and_describe_their_content(sandbox: SandboxHandle) -> None:
    schema = _attachment_validator()
    for attachment_id in (51, 52, 53, 55, 56, 57, 59, 60):
        body = sandbox.get(f"/api/v3/attachments/{attachment_id}").json()
        assert not problems(schema, body), problems(schema, body)
        data, _ = _content(sandbox, attachment_id)
        assert body["fileSize"] == len(data)
        assert body["digest"]["hash"] == hashlib.md5(data, usedforsecurity=False).hexdigest()
        assert body["_links"]["downloadLocation"]["href"].endswith(f"/{attachment_id}/content")
    logo = sandbox.get("/api/v3/attachments/55").json()
    assert (logo["contentType"], logo["description"]["raw"]) == ("image/png", "The logo")
    assert logo["_links"]["container"] == {"href": "/api/v3/meetings/12", "title": "Weekly sync"}


def test_container_lists_are_unpaginated(sandbox: SandboxHandle) -> None:
    for path, ids in (
        ("/api/v3/work_packages/101/attachments", [51, 54, 59, 60]),
        ("/api/v3/wiki_pages/7/attachments", [52]),
        ("/api/v3/meetings/12/attachments", [55]),
        ("/api/v3/documents/21/attachments", [56]),
        ("/api/v3/posts/41/attachments", [57]),
    ):
        body = sandbox.get(path).json()
        assert [e["id"] for e in body["_embedded"]["elements"]] == ids
        assert (body["total"], body["count"]) == (len(ids), len(ids))
        assert "pageSize" not in body and body["_links"]["self"]["href"] == path
    assert sandbox.get("/api/v3/wiki_pages/999/attachments").status_code == 404


def test_pdf_is_a_real_pdf_holding_the_text(sandbox: SandboxHandle) -> None:
    data, headers = _content(sandbox, 51)
    assert data.startswith(b"%PDF-1.4") and data.rstrip().endswith(b"%%EOF")
    assert headers["content-type"] == "application/pdf"
    assert headers["content-length"] == str(len(data))
    assert headers["content-disposition"].startswith('attachment; filename="contract.pdf"')
    assert f"({CONTRACT_PHRASE} ".encode() in data or CONTRACT_PHRASE.encode() in data
    # The cross-reference table points at every object.
    xref_at = int(data.rsplit(b"startxref\n", 1)[1].split(b"\n")[0])
    assert data[xref_at:].startswith(b"xref\n")
    rows = re.findall(rb"(\d{10}) 00000 n ", data[xref_at:])
    for number, offset in enumerate(rows, start=1):
        assert data[int(offset) :].startswith(b"%d 0 obj" % number)


def test_docx_is_a_zip_with_the_text_in_word_document_xml(sandbox: SandboxHandle) -> None:
    data, headers = _content(sandbox, 52)
    assert headers["content-type"].startswith("application/vnd.openxmlformats-officedocument")
    archive = zipfile.ZipFile(io.BytesIO(data))
    assert archive.testzip() is None
    assert {"[Content_Types].xml", "_rels/.rels", "word/document.xml"} <= set(archive.namelist())
    document = archive.read("word/document.xml").decode("utf-8")
    assert "Restart the &lt;queue&gt; &amp; the workers." in document


def test_base64_and_text_content_round_trip(sandbox: SandboxHandle) -> None:
    assert _content(sandbox, 55)[0] == base64.b64decode(SMALL_PNG)
    data, headers = _content(sandbox, 57)
    assert data == b"Vim." and headers["content-type"].startswith("text/plain")


def test_zip_bomb_and_corrupt_pdf_are_what_they_claim(sandbox: SandboxHandle) -> None:
    bomb, _ = _content(sandbox, 59)
    assert len(bomb) < 20_000
    member = zipfile.ZipFile(io.BytesIO(bomb)).getinfo("word/document.xml")
    assert member.file_size == 3 << 20
    inflated = zipfile.ZipFile(io.BytesIO(bomb)).read("word/document.xml")  # CRC checked
    assert inflated == b" " * (3 << 20)
    broken, _ = _content(sandbox, 60)
    assert len(broken) == 5000 and broken.startswith(b"%PDF-") and b"xref" not in broken


def test_a_200_mb_file_streams_with_its_length_up_front(sandbox: SandboxHandle) -> None:
    with (
        sandbox.client() as client,
        client.stream("GET", "/api/v3/attachments/54/content") as response,
    ):
        assert response.status_code == 200
        assert response.headers["content-length"] == str(FILLER_BYTES)
        first = next(response.iter_raw())
        assert 0 < len(first) <= 1 << 20
        assert first.startswith(b"opindex sandbox filler")
    with open(f"/proc/{sandbox.process.pid}/status", encoding="ascii") as status:
        resident_kb = int(re.search(r"VmRSS:\s+(\d+)", status.read()).group(1))  # type: ignore[union-attr]
    assert resident_kb < 150_000  # far below the 200 MB of the file


def test_loading_does_not_render_content() -> None:
    corpus = publications_corpus()
    corpus["attachments"] += [
        {
            "id": 1000 + index,
            "container": {"kind": "work_packages", "id": 101},
            "fileName": f"f{index}.bin",
            "author": 1,
            "generate": {"format": "filler", "bytes": FILLER_BYTES},
        }
        for index in range(50)
    ]
    started = time.perf_counter()
    with running_sandbox(corpus) as handle:
        elapsed = time.perf_counter() - started
        assert handle.get("/api/v3/attachments/1049/content", params=None).headers[
            "content-length"
        ] == str(FILLER_BYTES)
    assert elapsed < 30  # 10 GB of declared content; nothing is read at start-up
