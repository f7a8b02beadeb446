"""Words of records for known-item queries: content words, document frequencies, reach."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from evallib.corpus_view import CorpusItem
from opindex.search.document import Kind
from opindex.search.query import STOP_WORDS
from opindex.search.score import score_prefix_token, score_token
from opindex.search.tokenizer import token_texts, tokenize

MAX_AMBIGUITY = 3
"""Most records of the kind that may contain every query word (the expected one included).
Generated corpora repeat templates, so a few near-duplicates can tie with the answer."""
MAX_WORDS = 4

# Plausible words of project work that the corpus generator never writes. Words that come
# within fuzzy reach of the corpus vocabulary are filtered out before use.
FOREIGN_WORDS: tuple[str, ...] = (
    "grafana", "terraform", "jenkins", "sharepoint", "salesforce", "confluence", "kibana",
    "ansible", "webpack", "zendesk", "datadog", "tableau", "mailchimp", "figma", "hubspot",
    "nagios", "airflow", "bitbucket", "gitlab", "pagerduty", "splunk", "vagrant", "okta",
    "sendgrid", "twilio", "heroku", "netlify", "vercel", "cypress", "selenium",
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class Word:
    """A word of a field value: as written, and as the tokenizer normalizes it."""

    surface: str
    token: str


def value_words(text: str) -> list[Word]:
    """Content words of *text* in order, once each: >= 3 letters, no stop words, no numbers."""
    seen: set[str] = set()
    words = []
    for token in tokenize(text):
        if len(token.text) < 3 or token.text in STOP_WORDS or not token.text.isalpha():
            continue
        if token.text not in seen:
            seen.add(token.text)
            words.append(Word(text[token.start : token.end], token.text))
    return words


class CorpusStats:
    """Document frequencies and per-record token sets, per kind."""

    def __init__(self, items: Iterable[CorpusItem]) -> None:
        self.tokens: dict[tuple[Kind, int], frozenset[str]] = {}
        self.df: dict[Kind, Counter[str]] = {}
        self.postings: dict[Kind, dict[str, list[int]]] = {}
        for item in items:
            tokens = frozenset(t for text in item.texts() for t in token_texts(text))
            self.tokens[(item.kind, item.id)] = tokens
            self.df.setdefault(item.kind, Counter()).update(tokens)
            postings = self.postings.setdefault(item.kind, {})
            for token in tokens:
                postings.setdefault(token, []).append(item.id)
        self.vocabulary = frozenset(t for counter in self.df.values() for t in counter)

    def frequency(self, kind: Kind, token: str) -> int:
        return self.df.get(kind, Counter())[token]

    def ambiguity(self, kind: Kind, tokens: Sequence[str]) -> int:
        """Records of *kind* containing every token of *tokens*."""
        if not tokens:
            return 0
        rarest = min(tokens, key=lambda t: self.frequency(kind, t))
        ids = self.postings.get(kind, {}).get(rarest, [])
        wanted = set(tokens)
        return sum(1 for i in ids if wanted <= self.tokens[(kind, i)])

    def frequent(self, kind: Kind, count: int) -> list[str]:
        """The *count* most frequent content tokens of *kind*."""
        counted = self.df.get(kind, Counter()).items()  # ties by token: the same every run
        common = sorted(counted, key=lambda pair: (-pair[1], pair[0]))
        good = [t for t, _ in common if len(t) >= 4 and t.isalpha() and t not in STOP_WORDS]
        return good[:count]

    def reaches(self, word: str) -> bool:
        """True when *word* (or *word* as a prefix) scores above zero on any corpus token."""
        token = " ".join(token_texts(word))
        return any(
            score_token(token, t) > 0 or score_prefix_token(token, t) > 0 for t in self.vocabulary
        )
