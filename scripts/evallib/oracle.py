"""The exhaustive re-rank: every record of a kind scored by the shared scorer, no index.

Scoring a whole kind for every query is slow in pure Python, so records that cannot
score are skipped first, without any index: a fuzzy field value scores above zero only
if one of its tokens scores above zero for some query term, so only records holding such
a token (found by scoring the kind's whole vocabulary against every term) are ranked.
The result is the one ``rank_documents`` gives over every record. Containment queries
(exact mode, queries under 3 characters) rank every record.
"""

from __future__ import annotations

from collections.abc import Iterable

from evallib.corpus_view import CorpusItem
from opindex.search.analysis import AnalyzedDocument, analyze_document
from opindex.search.document import FieldValue, Kind, SearchDocument
from opindex.search.fields import rank_documents
from opindex.search.query import alternative_score, parse_query


def corpus_document(item: CorpusItem) -> SearchDocument:
    """The SearchDocument of a corpus record, every field read."""
    fields = {name: tuple(FieldValue(v) for v in values) for name, values in item.fields.items()}
    return SearchDocument(kind=item.kind, id=item.id, fields=fields)


class ExhaustiveRanker:
    """Ranks whole kinds with ``opindex.search.rank_documents`` (analysed once, up front)."""

    def __init__(self, documents: Iterable[SearchDocument]) -> None:
        self.documents: dict[Kind, list[AnalyzedDocument]] = {}
        self.postings: dict[Kind, dict[str, list[int]]] = {}
        for document in documents:
            self.documents.setdefault(document.kind, []).append(analyze_document(document))
        for kind, analyzed in self.documents.items():
            analyzed.sort(key=lambda d: d.id)
            postings: dict[str, list[int]] = {}
            for position, item in enumerate(analyzed):
                tokens = {t for values in item.fields.values() for v in values for t in v.distinct}
                for token in tokens:
                    postings.setdefault(token, []).append(position)
            self.postings[kind] = postings

    def scorable(self, kind: Kind, query: str) -> list[AnalyzedDocument]:
        """The records of *kind* that may score above zero for *query* (see module doc)."""
        documents = self.documents.get(kind, [])
        parsed = parse_query(query)
        if parsed.containment or not parsed.terms:
            return documents
        alternatives = [alt for term in parsed.terms for alt in term.alternatives]
        postings = self.postings.get(kind, {})
        positions: set[int] = set()
        for token, where in postings.items():
            if any(alternative_score(alt, token) > 0.0 for alt in alternatives):
                positions.update(where)
        return [documents[p] for p in sorted(positions)]

    def rank(self, kind: Kind, query: str, limit: int | None = 10) -> list[int]:
        """Ids of the best *limit* records of *kind* for *query*, best first."""
        ranked = rank_documents(self.scorable(kind, query), query, kind, limit=limit)
        return [item.record.id for item in ranked]

    def zero_hits(self, kind: Kind, query: str) -> bool:
        """True when no record of *kind* passes the scorer's gate for *query*."""
        return not self.rank(kind, query, limit=1)
