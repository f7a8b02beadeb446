"""Why the index path missed a known item: below the gate, outranked, or lost by retrieval."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from evallib.oracle import ExhaustiveRanker
from evallib.querygen import KnownItemQuery
from evallib.search_paths import Answer
from opindex.search.document import SearchDocument
from opindex.search.fields import rank_documents
from opindex.search.query import alternative_score, parse_query
from opindex.search.rank import DEFAULT_MIN_SCORE
from opindex.search.tokenizer import token_texts


def expected_score(document: SearchDocument, query: str) -> tuple[float, list[dict[str, Any]]]:
    """The scorer's score of *document* for *query* with no gate, and its matching fields."""
    ranked = rank_documents([document], query, document.kind, min_score=0.0)
    if not ranked:
        return 0.0, []
    fields = [{"field": m.field, "score": m.score, "snippet": m.snippet} for m in ranked[0].matches]
    return ranked[0].score, fields


def explain_miss(
    query: KnownItemQuery,
    answer: Answer,
    oracle: ExhaustiveRanker,
    documents: Mapping[tuple[str, int], SearchDocument],
) -> dict[str, Any]:
    """A record of one miss: what ranked instead and the likely reason."""
    assert query.expected_id is not None
    document = documents.get((query.kind, query.expected_id))
    instead = [
        {"id": i, "score": s, "title": t}
        for i, s, t in zip(answer.ids[:3], answer.scores[:3], answer.titles[:3], strict=False)
    ]
    entry: dict[str, Any] = {
        "qid": query.qid,
        "category": query.category,
        "kind": query.kind,
        "query": query.query,
        "expected_id": query.expected_id,
        "note": query.note,
        "ranked_instead": instead,
        "relaxed": answer.relaxed,
        "effective_query": answer.effective_query,
    }
    if document is None:
        entry["reason"] = "the expected record is not in the index"
        return entry
    full = oracle.rank(query.kind, query.query, limit=None)
    score, fields = expected_score(document, query.query)
    best_field = max((f["score"] for f in fields), default=0.0)
    entry["expected_title"] = _title(document)
    entry["expected_score"] = score
    entry["expected_fields"] = fields
    if query.expected_id in full:
        oracle_rank = full.index(query.expected_id) + 1
        entry["oracle_rank"] = oracle_rank
        if oracle_rank <= 10:
            entry["reason"] = (
                f"retrieval: the exhaustive re-rank puts it at {oracle_rank}, the index path "
                "did not return it"
            )
        else:
            ties = _tied(oracle, query, score)
            reason = f"outranked: {oracle_rank - 1} records rank above it (its score {score:.2f}"
            reason += f"; {ties} others have exactly that score, ties go by id)" if ties else ")"
            reason += _weight_note(query, answer, documents, fields)
            split = split_across_fields(document, query.query)
            if split:
                reason += (
                    f"; its words are split across fields ({split}), and a record scores by "
                    "its best single field, so records with fewer of the words in a heavier "
                    "field score higher"
                )
            entry["reason"] = reason
    elif answer.relaxed:
        entry["reason"] = (
            f"relaxed to {answer.effective_query!r}, which no longer singles the record out"
        )
        missing = unmatched_terms(document, query.query)
        if missing:
            entry["reason"] += (
                f"; as written the query fell below the gate because no word of the record "
                f"matches {', '.join(map(repr, missing))}"
            )
    else:
        entry["reason"] = (
            f"below the gate: best field score {best_field:.2f} < {DEFAULT_MIN_SCORE}"
            if fields
            else "no field matches any query word"
        )
    return entry


def _weight_note(
    query: KnownItemQuery,
    answer: Answer,
    documents: Mapping[tuple[str, int], SearchDocument],
    fields: list[dict[str, Any]],
) -> str:
    """Why a better match lost: its best field weighs less than the first result's."""
    first = documents.get((query.kind, answer.ids[0])) if answer.ids else None
    if first is None or not fields:
        return ""
    _, first_fields = expected_score(first, query.query)
    if not first_fields:
        return ""
    mine, theirs = fields[0], first_fields[0]
    if mine["field"] == theirs["field"] or mine["score"] <= theirs["score"]:
        return ""
    return (
        f"; it matches better in {mine['field']} (field score {mine['score']:.2f}) than the "
        f"first result in {theirs['field']} ({theirs['score']:.2f}), but {mine['field']} "
        "weighs less, so the lighter field loses"
    )


def unmatched_terms(document: SearchDocument, query: str) -> list[str]:
    """The query's terms that score on no token of any field of *document*."""
    tokens = {t for values in document.fields.values() for v in values for t in token_texts(v.text)}
    return [
        term.alternatives[0].token
        for term in parse_query(query).terms
        if not any(alternative_score(a, t) > 0 for a in term.alternatives for t in tokens)
    ]


def split_across_fields(document: SearchDocument, query: str) -> str:
    """``subject: a, b; description: c`` when the query's terms are covered by the
    document's fields together but by no single field; empty otherwise."""
    terms = parse_query(query).terms
    if query_is_containment(query) or not terms:
        return ""
    covered: dict[str, list[str]] = {}
    for name, values in document.fields.items():
        tokens = {t for value in values for t in token_texts(value.text)}
        for term in terms:
            if any(alternative_score(a, t) > 0 for a in term.alternatives for t in tokens):
                covered.setdefault(name, []).append(term.alternatives[0].token)
    union = {word for words in covered.values() for word in words}
    if len(union) < len(terms) or any(len(words) == len(terms) for words in covered.values()):
        return ""
    return "; ".join(f"{name}: {', '.join(words)}" for name, words in covered.items())


def query_is_containment(query: str) -> bool:
    return parse_query(query).containment


def _tied(oracle: ExhaustiveRanker, query: KnownItemQuery, score: float) -> int:
    ranked = rank_documents(oracle.scorable(query.kind, query.query), query.query, query.kind)
    return sum(1 for r in ranked if r.score == score and r.record.id != query.expected_id)


def _title(document: SearchDocument) -> str:
    for name in ("subject", "title"):
        values = document.fields.get(name)
        if values:
            return values[0].text
    return ""
