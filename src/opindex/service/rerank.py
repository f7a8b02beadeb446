"""Re-ranking index candidates: fast analysis of stored records, then the shared scorer.

The scorer needs every candidate's field values tokenized. ``fast_token_texts`` gives the
tokens of ``opindex.search.tokenize.token_texts`` (ARCHITECTURE invariant 1: one
tokenizer) about twice as fast for the common cases: ASCII text is split in one C-level
pass, and text whose letter runs are plain is normalized run by run; anything else is
handed to ``token_texts`` itself. ``tests/service/test_service_rerank.py`` proves the two
token-for-token identical on arbitrary Unicode text.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from opindex.records import Record
from opindex.search.analysis import AnalyzedDocument, AnalyzedText
from opindex.search.document import Kind, SearchDocument
from opindex.search.fields import rank_documents
from opindex.search.query import Query
from opindex.search.tokenize import normalize_token, token_texts
from opindex.service.results import ScoredHit

_ASCII_TOKEN = re.compile(r"[a-z0-9]+")
# A letter/digit run, possibly with non-ASCII non-word characters inside (as the
# tokenizer finds them); such mixed runs go to token_texts.
_RUN = re.compile(r"[^\W_]+(?:[^\x00-\x7f\w\s]+[^\W_]*)*")


def fast_token_texts(text: str) -> list[str]:
    """Exactly ``token_texts(text)``, computed faster for the common cases."""
    if text.isascii():
        return _ASCII_TOKEN.findall(text.lower())
    tokens: list[str] = []
    for run in _RUN.findall(text):
        if run.isascii():
            tokens.append(run.lower())
        elif run.isalnum():
            normalized = normalize_token(run)
            if normalized:
                tokens.append(normalized)
        else:  # a run holding marks or symbols: the tokenizer decides how it splits
            return token_texts(text)
    return tokens


def analyze_record(document: SearchDocument) -> AnalyzedDocument:
    """``analyze_document(document)``, with the fast tokenizer."""
    fields = {
        name: tuple(AnalyzedText(value.text, fast_token_texts(value.text)) for value in values)
        for name, values in document.fields.items()
    }
    return AnalyzedDocument(document=document, fields=fields)


class Reranker:
    """Ranks candidate windows of one query, analysing each record once per search."""

    def __init__(self, query: Query, kind: Kind) -> None:
        self.query = query
        self.kind = kind
        self._analyzed: dict[int, AnalyzedDocument] = {}

    def rank(self, candidates: Sequence[Record]) -> list[ScoredHit]:
        """Every candidate the scorer accepts, best first (ties by ascending id)."""
        by_id = {record.id: record for record in candidates}
        documents = []
        for record in candidates:
            analyzed = self._analyzed.get(record.id)
            if analyzed is None or analyzed.document is not record.document:
                analyzed = self._analyzed[record.id] = analyze_record(record.document)
            documents.append(analyzed)
        ranked = rank_documents(documents, self.query, self.kind)
        return [ScoredHit(by_id[item.record.id], item) for item in ranked]
