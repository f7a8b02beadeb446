"""The shipped sample corpus carries news, documents, versions, a post and real attachments."""

from __future__ import annotations

import io
import json
import zipfile

from tests.support.sandbox import running_sandbox

from opindex.sandbox import sample_corpus_path
from opindex.sandbox.corpus_gen import ADMIN_KEY

PHRASES = ("indemnification clause", "Vertragsstrafe")


def test_the_contract_phrase_lives_only_inside_the_pdf_attachment() -> None:
    sample = json.loads(sample_corpus_path().read_text(encoding="utf-8"))
    for phrase in PHRASES:
        holders = [
            (kind, record["id"])
            for kind, records in sample.items()
            if isinstance(records, list)
            for record in records
            if isinstance(record, dict) and phrase.lower() in json.dumps(record).lower()
        ]
        assert holders == [("attachments", 951)], phrase
    with running_sandbox(sample_corpus_path()) as sandbox:
        listed = sandbox.get("/api/v3/work_packages/1001/attachments", ADMIN_KEY).json()
        assert [e["fileName"] for e in listed["_embedded"]["elements"]] == [
            "hosting-agreement-nimbus.pdf"
        ]
        pdf = sandbox.get("/api/v3/attachments/951/content", ADMIN_KEY).content
        assert pdf.startswith(b"%PDF-") and b"indemnification clause" in pdf
        docx = sandbox.get("/api/v3/attachments/952/content", ADMIN_KEY).content
        document = zipfile.ZipFile(io.BytesIO(docx)).read("word/document.xml").decode()
        assert "keyboard paths" in document
        assert sandbox.get("/api/v3/news", ADMIN_KEY).json()["total"] == 2
        assert sandbox.get("/api/v3/documents", ADMIN_KEY).json()["total"] == 2
        assert sandbox.get("/api/v3/versions", ADMIN_KEY).json()["total"] == 2
        assert sandbox.get("/api/v3/posts/891", ADMIN_KEY).status_code == 200
        project = sandbox.get("/api/v3/projects/1", ADMIN_KEY).json()
        assert project["statusExplanation"]["raw"].startswith("On track")
