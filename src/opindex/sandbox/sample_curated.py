"""Hand-written records of the sample corpus: the stories a demo tour tells."""

from __future__ import annotations

from typing import Any

# Curated people (ids far above generated ones). Zoë and Łukasz form the design team.
JUERGEN, ZOE, LUKASZ, JOSE, SOEREN, SIOBHAN = 101, 102, 103, 104, 105, 106
DESIGN_PROJECT = 50

USERS: list[dict[str, Any]] = [
    {"id": JUERGEN, "login": "juergen.mueller", "name": "Jürgen Müller", "admin": False},
    {"id": ZOE, "login": "zoe.lindqvist", "name": "Zoë Lindqvist", "admin": False},
    {"id": LUKASZ, "login": "lukasz.nowak", "name": "Łukasz Nowak", "admin": False},
    {"id": JOSE, "login": "jose.garcia", "name": "José García", "admin": False},
    {"id": SOEREN, "login": "soeren.orsted", "name": "Søren Ørsted", "admin": False},
    {"id": SIOBHAN, "login": "siobhan.oneill", "name": "Siobhán O'Neill", "admin": False},
]

DESIGN_TEAM_PROJECT: dict[str, Any] = {
    "id": DESIGN_PROJECT,
    "identifier": "design-team",
    "name": "Design Team",
    "active": True,
    "public": False,
    "members": [1, ZOE, LUKASZ, JOSE],
    "description": "Research, prototypes and the component library of the design team.",
    "createdAt": "2025-02-03T09:00:00Z",
    "updatedAt": "2026-05-12T09:00:00Z",
}

# Memberships of curated people in generated projects (project id -> user ids).
EXTRA_MEMBERS: dict[int, list[int]] = {
    1: [JUERGEN, ZOE, LUKASZ, JOSE, SOEREN, SIOBHAN],
    2: [JUERGEN, SOEREN],
    4: [JUERGEN, SIOBHAN],
}


def _activity(
    activity_id: int, user: int, comment: str, when: str, *, internal: bool = False
) -> dict[str, Any]:
    return {
        "id": activity_id,
        "user": user,
        "comment": comment,
        "internal": internal,
        "createdAt": when,
        "updatedAt": when,
    }


WORK_PACKAGES: list[dict[str, Any]] = [
    {
        # Typo story: "certficate renewal" still finds this.
        "id": 1001,
        "project": 1,
        "subject": "Renew TLS certificate for the customer portal",
        "description": "The certificate of portal.example.org expires on 30 June. Order the "
        "renewal from the certificate authority and deploy it to both load balancers.",
        "type": 1,
        "status": 2,
        "author": SOEREN,
        "assignee": JUERGEN,
        "createdAt": "2026-05-02T08:15:00Z",
        "updatedAt": "2026-05-20T16:40:00Z",
        "activities": [
            _activity(90001, JUERGEN, "CSR generated, waiting for the CA.", "2026-05-04T10:00:00Z"),
            _activity(
                90002, SOEREN, "Deployed to the first load balancer.", "2026-05-20T16:40:00Z"
            ),
        ],
    },
    {
        # Deep-only story: "flamingo" appears in a comment only.
        "id": 1002,
        "project": 1,
        "subject": "Checkout page slow on mobile devices",
        "description": "Customers on phones wait up to eight seconds before the payment "
        "step renders. Desktop is fine.",
        "type": 2,
        "status": 5,
        "author": JOSE,
        "assignee": LUKASZ,
        "createdAt": "2026-04-07T09:30:00Z",
        "updatedAt": "2026-04-16T11:05:00Z",
        "activities": [
            _activity(
                90003, LUKASZ, "Reproduced on an older Android phone.", "2026-04-08T13:00:00Z"
            ),
            _activity(
                90004,
                LUKASZ,
                "Found it: the root cause was the flamingo feature flag, which loaded the "
                "whole recommendation widget before the payment form. Flag removed.",
                "2026-04-15T17:20:00Z",
            ),
            _activity(
                90005,
                SIOBHAN,
                "Internal: the customer who escalated this is renegotiating their contract.",
                "2026-04-16T11:05:00Z",
                internal=True,
            ),
        ],
    },
    {
        # Relaxation story: no record holds every word of "drain nodes control plane
        # canary" ("canary" appears nowhere), but dropping that word finds this.
        "id": 1003,
        "project": 2,
        "subject": "Kubernetes 1.31 upgrade on the staging cluster",
        "description": "Drain the nodes one by one, upgrade the control plane first, then "
        "the workers. Announce the maintenance window in the team channel.",
        "type": 1,
        "status": 1,
        "author": SOEREN,
        "assignee": SOEREN,
        "createdAt": "2026-06-01T07:45:00Z",
        "updatedAt": "2026-06-03T12:00:00Z",
        "activities": [
            _activity(
                90006, JUERGEN, "Please keep the ingress controller pinned.", "2026-06-03T12:00:00Z"
            )
        ],
    },
    {
        "id": 1004,
        "project": DESIGN_PROJECT,
        "subject": "Accessible colour palette for the component library",
        "description": "Contrast ratios of the secondary buttons fail WCAG AA. Propose a "
        "palette that passes and keeps the brand colours recognisable.",
        "type": 3,
        "status": 2,
        "author": ZOE,
        "assignee": ZOE,
        "createdAt": "2026-03-10T10:00:00Z",
        "updatedAt": "2026-03-24T15:30:00Z",
        "activities": [
            _activity(90007, JOSE, "Nice, the new teal passes at 4.8:1.", "2026-03-24T15:30:00Z")
        ],
    },
]

WIKI_PAGES: list[dict[str, Any]] = [
    {
        "id": 140,
        "project": 1,
        "title": "Certificate renewal runbook",
        "text": "## When\n\nCertificates are renewed thirty days before they expire.\n\n"
        "## How\n\nGenerate a CSR on the bastion host, order the renewal, then deploy the "
        "new certificate to every load balancer and check the chain with openssl.\n\n"
        "## Who\n\nThe platform on-call pair of the week owns renewals.",
        "createdAt": "2025-11-03T09:00:00Z",
        "updatedAt": "2026-05-21T08:00:00Z",
    },
    {
        "id": 147,
        "project": DESIGN_PROJECT,
        "title": "Design review checklist",
        "text": "Every prototype is reviewed by two designers before it reaches a sprint. "
        "Check contrast, keyboard navigation, empty states and error messages.",
        "createdAt": "2025-09-15T09:00:00Z",
        "updatedAt": "2026-02-02T09:00:00Z",
    },
]


def _item(
    item_id: int, position: int, title: str, notes: str, outcomes: list[dict[str, Any]]
) -> dict[str, Any]:
    return {
        "id": item_id,
        "title": title,
        "notes": notes,
        "position": position,
        "durationInMinutes": 15,
        "outcomes": outcomes,
    }


def _outcome(outcome_id: int, kind: str, notes: str, author: int) -> dict[str, Any]:
    return {"id": outcome_id, "kind": kind, "notes": notes, "author": author}


MEETINGS: list[dict[str, Any]] = [
    {
        # Spec recall case: "budget aproval" / "approval of the budget".
        "id": 501,
        "project": 4,
        "title": "Finance steering committee",
        "location": "Boardroom",
        "startTime": "2026-06-18T13:00:00Z",
        "duration": 1.5,
        "state": "closed",
        "author": SIOBHAN,
        "participants": [1, JUERGEN, SIOBHAN],
        "createdAt": "2026-06-10T09:00:00Z",
        "updatedAt": "2026-06-18T15:10:00Z",
        "agendaItems": [
            _item(
                9001,
                1,
                "Approval of Q3 budget",
                "The Q3 budget is 4% above Q2, mostly for cloud costs and two new hires.",
                [_outcome(9501, "decision", "Q3 budget approved as proposed.", SIOBHAN)],
            ),
            _item(9002, 2, "Travel expenses", "Receipts must be filed within 30 days.", []),
        ],
    },
    {
        # Spec recall case: "what did we decide about hiring".
        "id": 502,
        "project": 2,
        "title": "Platform team planning",
        "location": "Room Fjord",
        "startTime": "2026-05-27T09:00:00Z",
        "duration": 1.0,
        "state": "closed",
        "author": SOEREN,
        "participants": [1, JUERGEN, SOEREN],
        "createdAt": "2026-05-20T09:00:00Z",
        "updatedAt": "2026-05-27T10:20:00Z",
        "agendaItems": [
            _item(
                9003,
                1,
                "Hiring plan",
                "Two backend positions are open; product management asked for a researcher.",
                [
                    _outcome(
                        9502,
                        "decision",
                        "We decided to hire two backend engineers in Q3 and to pause hiring "
                        "for the researcher role until January.",
                        SOEREN,
                    )
                ],
            ),
            _item(9004, 2, "On-call rotation", "Søren swaps weeks with Jürgen in July.", []),
        ],
    },
    {
        # Spec recall case: "meeting with the design team" (participants, Design Team).
        "id": 503,
        "project": DESIGN_PROJECT,
        "title": "Checkout flow walkthrough",
        "location": "Studio 2",
        "startTime": "2026-04-09T14:00:00Z",
        "duration": 1.0,
        "state": "closed",
        "author": ZOE,
        "participants": [ZOE, LUKASZ, JOSE],
        "createdAt": "2026-04-01T09:00:00Z",
        "updatedAt": "2026-04-09T15:30:00Z",
        "agendaItems": [
            _item(
                9005,
                1,
                "Wireframes of the new payment step",
                "Zoë walks through the wireframes; Łukasz shows the prototype on a phone.",
                [_outcome(9503, "information", "Usability test booked for next week.", ZOE)],
            )
        ],
    },
    {
        # Spec recall case: "muller" finds the meeting authored by Müller.
        "id": 504,
        "project": 1,
        "title": "Office move planning",
        "location": "Café corner",
        "startTime": "2026-07-02T10:00:00Z",
        "duration": 0.5,
        "state": "closed",
        "author": JUERGEN,
        "participants": [JUERGEN, SOEREN, SIOBHAN],
        "createdAt": "2026-06-25T09:00:00Z",
        "updatedAt": "2026-07-02T10:45:00Z",
        "agendaItems": [
            _item(
                9006,
                1,
                "Desk plan for the new floor",
                "Quiet zone next to the windows, meeting rooms by the lifts.",
                [],
            )
        ],
    },
]

# Queries a demo tour can run, with the record each should find first.
STORIES: list[dict[str, Any]] = [
    {"query": "certficate renewal", "expect": "work_package 1001", "shows": "typo tolerance"},
    {"query": "flamingo", "expect": "work_package 1002", "shows": "match inside a comment"},
    {
        "query": "drain nodes control plane canary",
        "expect": "work_package 1003",
        "shows": "zero hits rescued by relaxation",
    },
    {"query": "budget aproval", "expect": "meeting 501", "shows": "agenda item, with a typo"},
    {"query": "approval of the budget", "expect": "meeting 501", "shows": "agenda item"},
    {
        "query": "what did we decide about hiring",
        "expect": "meeting 502",
        "shows": "outcome note",
    },
    {"query": "meeting with the design team", "expect": "meeting 503", "shows": "participants"},
    {"query": "muller", "expect": "meeting 504", "shows": "name without diacritics"},
]
