"""A small built-in thesaurus of project-management vocabulary for concept expansion."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType

# Each group is a set of words used interchangeably in project work. Every word maps to
# the other words of its groups, nearest (first listed) first. Single words only: a
# query term's alternatives are single tokens.
_GROUPS: tuple[tuple[str, ...], ...] = (
    ("bug", "defect", "issue", "error", "fault"),
    ("crash", "failure", "outage", "incident"),
    ("fix", "patch", "hotfix", "repair"),
    ("meeting", "sync", "standup", "call", "session"),
    ("retro", "retrospective", "review"),
    ("decide", "decision", "decided", "agreed", "resolution"),
    ("hire", "hiring", "recruit", "recruiting", "recruitment", "onboarding"),
    ("candidate", "applicant", "interview"),
    ("budget", "cost", "costs", "spend", "spending", "expense", "expenses"),
    ("invoice", "billing", "payment"),
    ("release", "deploy", "deployment", "ship", "launch", "rollout"),
    ("deadline", "due", "milestone", "target"),
    ("schedule", "timeline", "plan", "roadmap"),
    ("task", "ticket", "todo", "item"),
    ("feature", "enhancement", "improvement"),
    ("requirement", "requirements", "spec", "specification"),
    ("doc", "docs", "documentation", "wiki", "manual"),
    ("test", "tests", "testing", "qa", "verification"),
    ("customer", "client", "user", "stakeholder"),
    ("approve", "approval", "approved", "signoff"),
    ("risk", "blocker", "impediment", "dependency"),
    ("estimate", "estimation", "effort", "sizing"),
    ("priority", "urgent", "critical", "blocker"),
    ("team", "squad", "crew", "staff"),
    ("vacation", "holiday", "leave", "absence"),
    ("contract", "agreement", "proposal", "quote"),
    ("design", "mockup", "wireframe", "ux", "ui"),
    ("security", "vulnerability", "cve", "audit"),
    ("performance", "latency", "slow", "speed"),
    ("migration", "upgrade", "migrate"),
    ("infrastructure", "infra", "server", "hosting"),
    ("report", "summary", "status", "update"),
    ("goal", "objective", "okr", "kpi"),
    ("sprint", "iteration", "cycle"),
    ("backlog", "queue"),
    ("cancel", "cancelled", "postpone", "postponed", "delay", "delayed"),
)


def _build(groups: Sequence[Sequence[str]]) -> Mapping[str, tuple[str, ...]]:
    synonyms: dict[str, list[str]] = {}
    for group in groups:
        for word in group:
            entry = synonyms.setdefault(word, [])
            entry.extend(other for other in group if other != word and other not in entry)
    return MappingProxyType({word: tuple(others) for word, others in synonyms.items()})


BUILTIN_THESAURUS: Mapping[str, tuple[str, ...]] = _build(_GROUPS)
"""Project-management synonyms used by concept expansion when no thesaurus is injected.

Groups (each word maps to the others of its groups, first listed first): bug/defect/issue/
error/fault; crash/failure/outage/incident; fix/patch/hotfix; meeting/sync/standup/call;
retro/review; decide/decision/agreed; hire/hiring/recruit/onboarding; candidate/applicant/
interview; budget/cost/spend/expense; invoice/billing/payment; release/deploy/ship/launch/
rollout; deadline/due/milestone; schedule/timeline/plan/roadmap; task/ticket/todo;
feature/enhancement; requirement/spec; doc/documentation/wiki; test/qa; customer/client/
user/stakeholder; approve/approval/signoff; risk/blocker/dependency; estimate/effort;
priority/urgent/critical; team/squad/staff; vacation/holiday/leave; contract/agreement/
proposal; design/mockup/wireframe/ux; security/vulnerability/audit; performance/latency;
migration/upgrade; infrastructure/server/hosting; report/summary/status; goal/objective/
okr/kpi; sprint/iteration; backlog/queue; cancel/postpone/delay.
"""
