"""Re-ranking index candidates: fast analysis of stored records, then the shared scorer.

The scorer needs every candidate's field values tokenized. ``fast_token_texts`` gives the
tokens of ``opindex.search.tokenize.token_texts`` (ARCHITECTURE invariant 1: one
tokenizer) about twice as fast for the common cases: ASCII text, and text whose only
non-ASCII characters are Latin letters with diacritics (folded first), is split in one
C-level pass, and text whose letter runs are plain is normalized run by run; anything else is
handed to ``token_texts`` itself. ``tests/service/test_service_rerank.py`` proves the two
token-for-token identical on arbitrary Unicode text.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence

from opindex.records import Record
from opindex.search.analysis import AnalyzedDocument, AnalyzedText, fast_token_texts
from opindex.search.document import Kind, SearchDocument
from opindex.search.fields import rank_documents_counted
from opindex.search.query import Query
from opindex.service.results import ScoredHit

MEMO_LIMIT = 5_000
"""Most analyses a reranker (or the rerankers of one search sharing a memo) keeps."""


def analyze_record(document: SearchDocument) -> AnalyzedDocument:
    """``analyze_document(document)``, with the fast tokenizer."""
    fields = {
        name: tuple([AnalyzedText(value.text, fast_token_texts(value.text)) for value in values])
        for name, values in document.fields.items()
    }
    return AnalyzedDocument(document=document, fields=fields)


def _token_count(document: AnalyzedDocument) -> int:
    return sum(len(value.tokens) for values in document.fields.values() for value in values)


class AnalysisCache:
    """Analysed records shared by the searches of a process, least recently used first out.

    Tokenizing stored records is most of the re-ranking cost, and the same records come
    back as candidates of many queries. Entries are keyed by (scope, kind, id) and used
    only while the stored document is unchanged (compared by value, so a re-decoded or
    re-synced record is checked, never trusted). The budget counts tokens: about 75 bytes
    each, so the default of 100,000 holds roughly 8 MB.
    """

    def __init__(self, token_budget: int = 100_000) -> None:
        self.token_budget = token_budget
        self._entries: OrderedDict[tuple[str, str, int], tuple[AnalyzedDocument, int]] = (
            OrderedDict()
        )
        self._tokens = 0
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def analyzed(self, scope: str, document: SearchDocument) -> AnalyzedDocument:
        """The analysis of *document*, from the cache when it holds this very content."""
        key = (scope, document.kind, document.id)
        with self._lock:
            entry = self._entries.get(key)
            if entry is not None:
                cached, size = entry
                if cached.document is not document and cached.document == document:
                    # Same content, new object (decoded again): follow the new object, so
                    # the next lookup is an identity check.
                    cached = AnalyzedDocument(document=document, fields=cached.fields)
                    self._entries[key] = (cached, size)
                if cached.document is document:
                    self._entries.move_to_end(key)
                    self.hits += 1
                    return cached
        analyzed = analyze_record(document)
        size = _token_count(analyzed) + 1
        with self._lock:
            self.misses += 1
            previous = self._entries.pop(key, None)
            if previous is not None:
                self._tokens -= previous[1]
            if size <= self.token_budget:
                self._entries[key] = (analyzed, size)
                self._tokens += size
                while self._tokens > self.token_budget:
                    _, (_, dropped) = self._entries.popitem(last=False)
                    self._tokens -= dropped
        return analyzed

    @property
    def size(self) -> int:
        """Tokens held now (never above the budget)."""
        return self._tokens

    def clear(self, scope: str | None = None) -> None:
        """Forget every entry (of one scope)."""
        with self._lock:
            for key in [k for k in self._entries if scope is None or k[0] == scope]:
                self._tokens -= self._entries.pop(key)[1]


class Reranker:
    """Ranks candidate windows of one query; each record is analysed once (or comes from
    *cache*, shared across searches, with *scope* naming the tenant).

    *memo* (record id to analysis) may be shared by the rerankers of one search (its
    relaxed queries rank mostly the same records); an entry is used only for the very
    record object it was made from.
    """

    def __init__(
        self,
        query: Query,
        kind: Kind,
        cache: AnalysisCache | None = None,
        scope: str = "",
        memo: dict[int, AnalyzedDocument] | None = None,
    ) -> None:
        self.query = query
        self.kind = kind
        self._cache = cache
        self._scope = scope
        self._analyzed: dict[int, AnalyzedDocument] = {} if memo is None else memo
        self._passing = 0

    def _analysis(self, document: SearchDocument) -> AnalyzedDocument:
        analyzed = self._analyzed.get(document.id)
        if analyzed is None or analyzed.document is not document:
            if self._cache is not None:
                analyzed = self._cache.analyzed(self._scope, document)
            else:
                analyzed = analyze_record(document)
            if len(self._analyzed) >= MEMO_LIMIT:
                self._analyzed.clear()  # a bound on memory, not an expected case
            self._analyzed[document.id] = analyzed
        return analyzed

    def rank(self, candidates: Sequence[Record], limit: int) -> list[ScoredHit]:
        """The best *limit* candidates the scorer accepts (ties by ascending id).

        Snippets are made for these only; ``passing`` counts the others.
        """
        by_id = {record.id: record for record in candidates}
        documents = [self._analysis(record.document) for record in candidates]
        ranked, self._passing = rank_documents_counted(
            documents, self.query, self.kind, limit=limit
        )
        return [ScoredHit(by_id[item.record.id], item) for item in ranked]

    def passing(self) -> int:
        """How many candidates of the last ``rank`` call the scorer accepts."""
        return self._passing
