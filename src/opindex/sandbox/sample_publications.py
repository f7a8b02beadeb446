"""Hand-written news, documents, versions, posts and attachments of the sample corpus."""

from __future__ import annotations

from typing import Any

from opindex.sandbox.sample_curated import DESIGN_PROJECT, JUERGEN, LUKASZ, SIOBHAN, SOEREN, ZOE

# Status explanations added to projects (project id -> text); descriptions stay as they are.
STATUS_EXPLANATIONS: dict[int, str] = {
    1: "On track: the portal certificate renewal is the only open risk.",
    DESIGN_PROJECT: "Slightly behind: the colour palette review took a second round.",
}

NEWS: list[dict[str, Any]] = [
    {
        "id": 801,
        "project": 1,
        "title": "Customer portal maintenance window",
        "summary": "The portal is read-only on Saturday from 06:00 to 08:00 UTC.",
        "description": "We deploy the renewed certificate to both load balancers and patch the "
        "reverse proxies. Expect a short read-only period; nothing needs to be done by users.",
        "author": SOEREN,
        "createdAt": "2026-06-20T08:00:00Z",
    },
    {
        "id": 802,
        "project": DESIGN_PROJECT,
        "title": "Component library 3.0 released",
        "summary": "New buttons, the accessible palette and dark mode.",
        "description": "Version 3.0 ships the palette from the accessibility review, redrawn "
        "icons and a dark theme. Migration notes are in the documents section.",
        "author": ZOE,
        "createdAt": "2026-04-02T10:00:00Z",
    },
]

DOCUMENTS: list[dict[str, Any]] = [
    {
        "id": 851,
        "project": 1,
        "title": "Supplier agreements",
        "description": "Signed agreements with the hosting and certificate suppliers.",
        "createdAt": "2026-02-11T09:00:00Z",
        "updatedAt": "2026-02-11T09:00:00Z",
    },
    {
        "id": 852,
        "project": DESIGN_PROJECT,
        "title": "Brand guidelines",
        "description": "Logo usage, typography and the colour palette.",
        "createdAt": "2025-10-01T09:00:00Z",
        "updatedAt": "2026-03-25T09:00:00Z",
    },
]

VERSIONS: list[dict[str, Any]] = [
    {
        "id": 871,
        "project": 1,
        "name": "Portal 2026.2",
        "description": "Certificate renewal, checkout speed-up.",
        "status": "open",
        "sharing": "none",
        "startDate": "2026-05-01",
        "endDate": "2026-07-31",
        "createdAt": "2026-04-20T09:00:00Z",
        "updatedAt": "2026-05-20T09:00:00Z",
    },
    {
        "id": 872,
        "project": DESIGN_PROJECT,
        "name": "Component library 3.0",
        "description": "Accessible palette and dark mode.",
        "status": "closed",
        "sharing": "none",
        "startDate": "2026-02-01",
        "endDate": "2026-03-31",
        "createdAt": "2026-01-20T09:00:00Z",
        "updatedAt": "2026-04-02T10:00:00Z",
    },
]

POSTS: list[dict[str, Any]] = [
    {
        "id": 891,
        "project": 1,
        "subject": "Which monitoring dashboards do you keep open during a deploy?",
        "author": JUERGEN,
        "createdAt": "2026-05-22T12:00:00Z",
        "updatedAt": "2026-05-22T12:00:00Z",
    }
]

# The contract phrase appears in this PDF and nowhere else in the corpus: a search hit on
# it can only come from inside the attachment.
CONTRACT_TEXT = (
    "Hosting services agreement between Example Portal GmbH and Nimbus Hosting AG\n\n"
    "Section 9: Liability. The indemnification clause covers third-party claims arising "
    "from data loss caused by the supplier. A Vertragsstrafe of 2,500 EUR per started day "
    "applies when the certificate renewal deadline is missed.\n\n"
    "Section 10: Term. The agreement runs for 24 months and renews for 12 months unless "
    "either party gives notice three months before the end of the term."
)

ATTACHMENTS: list[dict[str, Any]] = [
    {
        "id": 951,
        "container": {"kind": "work_packages", "id": 1001},
        "fileName": "hosting-agreement-nimbus.pdf",
        "description": "Signed supplier contract",
        "author": SIOBHAN,
        "generate": {"format": "pdf", "text": CONTRACT_TEXT},
        "createdAt": "2026-05-03T09:30:00Z",
        "updatedAt": "2026-05-03T09:30:00Z",
    },
    {
        "id": 952,
        "container": {"kind": "wiki_pages", "id": 147},
        "fileName": "review-checklist-template.docx",
        "description": "Template for design reviews",
        "author": LUKASZ,
        "generate": {
            "format": "docx",
            "text": "Design review template\nReviewer one: contrast and typography.\n"
            "Reviewer two: keyboard paths, focus order and screen reader labels.",
        },
        "createdAt": "2025-09-16T09:00:00Z",
        "updatedAt": "2025-09-16T09:00:00Z",
    },
    {
        "id": 953,
        "container": {"kind": "documents", "id": 852},
        "fileName": "palette.txt",
        "author": ZOE,
        "generate": {"format": "text", "text": "Teal 600 #00796B\nSlate 900 #1E293B\n"},
        "createdAt": "2026-03-25T09:00:00Z",
        "updatedAt": "2026-03-25T09:00:00Z",
    },
]
