"""A small corpus with news, documents, versions, posts and attachments of every form."""

from __future__ import annotations

import base64
from typing import Any

from tests.support.corpus_builder import CorpusBuilder

FILLER_BYTES = 209_715_200  # 200 MB, never held in memory by the sandbox
CONTRACT_PHRASE = "indemnification clause"
PRIVATE = 2  # project "hr": user 3 (carol) is not a member
SMALL_PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n" + bytes(range(32))).decode("ascii")


def publications_corpus() -> dict[str, Any]:
    """Project 1 is visible to bob and carol, project 2 to bob only, project 3 is public."""
    builder = CorpusBuilder()
    builder.add_work_package(101, subject="Vendor contract renewal")
    builder.add_work_package(201, project=PRIVATE, subject="Salary bands")
    builder.add_wiki_page(7, title="Runbook")
    builder.add_wiki_page(8, project=PRIVATE, title="Interview guide")
    builder.add_meeting(12, title="Weekly sync")
    data = builder.build()
    data["projects"][0]["description"] = "Operations of the **platform**."
    data["projects"][0]["statusExplanation"] = "On track after the migration."
    data["news"] = [
        _news(1, 1, "Maintenance on Saturday", "2026-03-01T09:00:00Z"),
        _news(2, 1, "New on-call rotation", "2026-02-01T09:00:00Z"),
        _news(3, PRIVATE, "Hiring freeze lifted", "2026-03-05T09:00:00Z"),
        _news(4, 3, "Community meetup", "2026-01-15T09:00:00Z"),
    ]
    data["documents"] = [
        {
            "id": 21,
            "project": 1,
            "title": "Architecture overview",
            "description": "Boxes.",
            "createdAt": "2026-02-10T09:00:00Z",
        },
        {"id": 22, "project": PRIVATE, "title": "Pay policy", "createdAt": "2026-01-10T09:00:00Z"},
        {"id": 23, "project": 3, "title": "Code of conduct", "createdAt": "2026-03-10T09:00:00Z"},
    ]
    data["versions"] = [
        {
            "id": 31,
            "project": 1,
            "name": "Sprint 12",
            "description": "Two weeks.",
            "status": "open",
            "startDate": "2026-03-02",
            "endDate": "2026-03-13",
        },
        {"id": 32, "project": PRIVATE, "name": "Hiring round 2", "status": "locked"},
        {
            "id": 33,
            "project": PRIVATE,
            "name": "Company release",
            "sharing": "system",
            "status": "closed",
        },
    ]
    data["posts"] = [
        {"id": 41, "project": 1, "subject": "Which editor do you use?", "author": 2},
        {"id": 42, "project": PRIVATE, "subject": "Referral bonus question", "author": 2},
    ]
    data["attachments"] = [
        _file(
            51,
            "work_packages",
            101,
            "contract.pdf",
            {"format": "pdf", "text": f"Vendor contract\nThe {CONTRACT_PHRASE} (§ 7) applies."},
        ),
        _file(
            52,
            "wiki_pages",
            7,
            "handbook.docx",
            {"format": "docx", "text": "Handbook\nRestart the <queue> & the workers."},
        ),
        _file(53, "work_packages", 201, "bands.txt", {"format": "text", "text": "Band A: ..."}),
        _file(54, "work_packages", 101, "huge.bin", {"format": "filler", "bytes": FILLER_BYTES}),
        {
            "id": 55,
            "container": {"kind": "meetings", "id": 12},
            "fileName": "logo.png",
            "author": 1,
            "contentBase64": SMALL_PNG,
            "description": "The logo",
        },
        _file(56, "documents", 21, "diagram.pdf", {"format": "pdf", "text": "Diagram"}),
        _file(57, "posts", 41, "notes.txt", {"format": "text", "text": "Vim."}),
        _file(58, "posts", 42, "bonus.txt", {"format": "text", "text": "500 EUR."}),
        _file(59, "work_packages", 101, "bomb.docx", {"format": "zipbomb", "bytes": 3 << 20}),
        _file(60, "work_packages", 101, "broken.pdf", {"format": "corrupt_pdf", "bytes": 5000}),
    ]
    return data


def _news(news_id: int, project: int, title: str, created: str) -> dict[str, Any]:
    return {
        "id": news_id,
        "project": project,
        "title": title,
        "summary": f"Summary of {title.lower()}.",
        "description": f"All about *{title}*.",
        "author": 1,
        "createdAt": created,
    }


def _file(
    file_id: int, kind: str, container: int, name: str, generate: dict[str, Any]
) -> dict[str, Any]:
    return {
        "id": file_id,
        "container": {"kind": kind, "id": container},
        "fileName": name,
        "author": 1,
        "generate": generate,
        "createdAt": "2026-03-03T09:00:00Z",
    }
