"""Ranked records → envelope results: the one builder both search paths use (parity).

The index path and the live path both end with ``(Record, Ranked)`` pairs scored by
``opindex.search.rank_documents``; this module alone turns them into ``SearchResult``s, so
the two paths cannot present the same scored record differently.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from opindex.envelope import (
    FieldMatchOut,
    MatchedAgendaItem,
    MatchedAttachment,
    MatchedComment,
    ProjectRef,
    SearchResult,
)
from opindex.record_builders import ATTACHMENT_META, COMMENT_META, attachment_names
from opindex.records import Record
from opindex.search import (
    DEFAULT_MIN_SCORE,
    AnalyzedText,
    ContainmentMatcher,
    FieldMatch,
    FieldValue,
    Query,
    QueryMatcher,
    Ranked,
    SearchDocument,
    extract_snippet,
    round_score,
)

AGENDA_FIELDS: tuple[str, ...] = ("agenda_title", "agenda_notes", "outcome_notes")
"""Meeting fields whose values point (``ref``) at an agenda item."""
COMMENT_FIELD = "comments"
"""The work-package field whose values point (``ref``) at an activity (comment)."""
MAX_SUB_MATCHES = 5
"""Most agenda items / comments listed per result."""

# Which kind of hit a meeting result is, by its best-matching field (spec §3.1 matchType).
_MEETING_MATCH_TYPE: Mapping[str, str] = {
    "title": "title",
    "location": "location",
    "project": "project",
    "author": "author",
    "agenda_title": "agenda_item",
    "agenda_notes": "agenda_item",
    "outcome_notes": "agenda_item",
    "participants": "participant",
}


@dataclass(frozen=True, slots=True)
class ScoredHit:
    """A ranked record together with its full Record (display and filter attributes)."""

    record: Record
    ranked: Ranked[SearchDocument]


class _ValueScorer:
    """Scores single field values against one query, sharing token scores across values."""

    def __init__(self, query: Query) -> None:
        self._containment = ContainmentMatcher(query) if query.containment else None
        self._fuzzy = None if query.containment or not query.terms else QueryMatcher(query)

    def score(self, text: str) -> float:
        """Rounded score of *text*."""
        if self._containment is not None:
            return self._containment.score(text)
        if self._fuzzy is None:
            return 0.0
        return round_score(self._fuzzy.score(AnalyzedText(text)))

    def known_scores(self, ranked: Ranked[SearchDocument], name: str) -> tuple[float, ...] | None:
        """The rounded scores of field *name*'s values as the ranking computed them (the
        same as :meth:`score` of each text), None where it did not keep them."""
        if self._fuzzy is None or ranked.value_scores is None:
            return None
        raw = ranked.value_scores.get(name, ())
        if len(raw) != len(ranked.record.fields.get(name, ())):
            return None
        return tuple(round_score(score) if score else 0.0 for score in raw)

    def offsets(self, text: str) -> tuple[int, ...]:
        """The offsets of the tokens of *text* that match (for its snippet)."""
        if self._containment is not None:
            return self._containment.offsets(text)
        return self._fuzzy.offsets(AnalyzedText(text)) if self._fuzzy is not None else ()

    @property
    def gate(self) -> float:
        """The score a sub-record value needs to be listed (the ranking gate)."""
        return 1.0 if self._containment is not None else DEFAULT_MIN_SCORE


@dataclass(frozen=True, slots=True)
class _SubMatch:
    ref: int
    snippet: str


@dataclass(slots=True)
class _BestValue:
    """A sub-record's best value so far: its score, its position and its text."""

    ref: int
    score: float
    order: int
    text: str


def _best_refs(ranked: Ranked[SearchDocument], fields: Iterable[str]) -> set[int]:
    """Refs of the values that gave each of *fields* its score in the ranking."""
    refs: set[int] = set()
    wanted = set(fields)
    for match in ranked.matches:
        if match.field in wanted:
            ref = _value_ref(ranked.record, match)
            if ref is not None:
                refs.add(ref)
    return refs


def _value_ref(document: SearchDocument, match: FieldMatch) -> int | None:
    values = document.fields.get(match.field, ())
    if 0 <= match.value_index < len(values):
        return values[match.value_index].ref
    return None


def _sub_matches(
    ranked: Ranked[SearchDocument], fields: Sequence[str], scorer: _ValueScorer
) -> list[_SubMatch]:
    """Sub-records (by ref) with a value reaching the gate, or that won a field; best first.

    Returns at most MAX_SUB_MATCHES entries; for each ref the best value gives the snippet.
    """
    winners = _best_refs(ranked, fields)
    best: dict[int, _BestValue] = {}
    order = 0
    for name in fields:
        known = scorer.known_scores(ranked, name)
        value: FieldValue
        for index, value in enumerate(ranked.record.fields.get(name, ())):
            order += 1
            if value.ref is None:
                continue
            score = known[index] if known is not None else scorer.score(value.text)
            if score <= 0.0 or (score < scorer.gate and value.ref not in winners):
                continue
            current = best.get(value.ref)
            if current is None:
                best[value.ref] = _BestValue(value.ref, score, order, value.text)
            elif score > current.score:
                current.score, current.text = score, value.text
    # only the listed ones are quoted: their texts alone are tokenized for offsets
    listed = sorted(best.values(), key=lambda sub: (-sub.score, sub.order))[:MAX_SUB_MATCHES]
    return [
        _SubMatch(sub.ref, extract_snippet(sub.text, scorer.offsets(sub.text))) for sub in listed
    ]


def _agenda_titles(document: SearchDocument) -> dict[int, str]:
    titles: dict[int, str] = {}
    for value in document.fields.get("agenda_title", ()):
        if value.ref is not None:
            titles.setdefault(value.ref, value.text)
    return titles


ATTACHMENTS_FIELD = "attachments"
_INTERNAL = (COMMENT_META, ATTACHMENT_META)
"""Attributes that travel with a record for the builders, not for the caller."""


_PATHS = {"news": "news", "document": "documents", "version": "versions", "project": "projects"}


def record_url(base_url: str | None, record: Record) -> str | None:
    """The record's page in the OpenProject web UI, when it can be built."""
    if not base_url:
        return None
    base = base_url.rstrip("/")
    kind, record_id = record.document.kind, record.id
    if kind == "work_package":
        return f"{base}/work_packages/{record_id}"
    if kind == "meeting":
        return f"{base}/meetings/{record_id}"
    if kind in _PATHS:
        return f"{base}/{_PATHS[kind]}/{record_id}"
    if kind == "attachment":
        return f"{base}/api/v3/attachments/{record_id}/content"
    slug = record.attributes.get("slug")
    if isinstance(slug, str) and slug and record.project_id is not None:
        return f"{base}/projects/{record.project_id}/wiki/{slug}"
    return None


class ResultBuilder:
    """Builds envelope results for one query (the effective one, after relaxation)."""

    def __init__(self, query: Query, *, base_url: str | None = None) -> None:
        self._scorer = _ValueScorer(query)
        self._base_url = base_url

    def build(self, hits: Iterable[ScoredHit]) -> list[SearchResult]:
        """One SearchResult per hit, in the given (ranked) order."""
        return [self.result(hit.record, hit.ranked) for hit in hits]

    def result(self, record: Record, ranked: Ranked[SearchDocument]) -> SearchResult:
        """The SearchResult of one ranked record."""
        document = ranked.record
        kind = document.kind
        matches = [
            FieldMatchOut(
                field=match.field,
                score=match.score,
                snippet=match.snippet,
                ref=_value_ref(document, match),
            )
            for match in ranked.matches
        ]
        result = SearchResult(
            id=record.id,
            kind=kind,
            title=record.title,
            score=ranked.score,
            matchedFields=[match.field for match in ranked.matches],
            snippet=ranked.matches[0].snippet if ranked.matches else None,
            matches=matches,
            project=ProjectRef(id=record.project_id, name=record.project_name)
            if record.project_id is not None or record.project_name is not None
            else None,
            updatedAt=record.updated_at,
            url=record_url(self._base_url, record),
            attributes={
                k: v
                for k, v in record.attributes.items()
                if k not in (COMMENT_META, ATTACHMENT_META)
            },
        )
        if kind == "meeting":
            titles = _agenda_titles(document)
            result.matched_agenda_items = [
                MatchedAgendaItem(id=sub.ref, title=titles.get(sub.ref, ""), snippet=sub.snippet)
                for sub in _sub_matches(ranked, AGENDA_FIELDS, self._scorer)
            ]
            if ranked.matches:
                result.match_type = _MEETING_MATCH_TYPE.get(ranked.matches[0].field)
        elif kind == "work_package":
            result.matched_comments = [
                MatchedComment(id=sub.ref, snippet=sub.snippet)
                for sub in _sub_matches(ranked, (COMMENT_FIELD,), self._scorer)
            ]
        if any(match.field == ATTACHMENTS_FIELD for match in ranked.matches):
            names = attachment_names(record)
            result.matched_attachments = [
                MatchedAttachment(id=sub.ref, fileName=names.get(sub.ref, ""), snippet=sub.snippet)
                for sub in _sub_matches(ranked, (ATTACHMENTS_FIELD,), self._scorer)
            ]
        return result
